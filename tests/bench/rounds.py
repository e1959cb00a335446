#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Markdown table over several rounds of convlab-bench and peers.py on the same cases.

On a shared machine the times drift by tens of percent over minutes, the peers' as much as
ours; one round's ratio compares figures taken seconds apart, several rounds show how far that
ratio itself moves. For each case and thread count: our auto method's median time over the
rounds with [fastest–slowest round], its share of the copy bandwidth, and the ratios ours/peer
(OpenCV in process from convlab-bench; each peer of peers.py) as the median with
[lowest–highest] over the rounds. Each round's time is itself the median of its runs.
Usage: rounds.py BENCH1.json:PEERS1.json [BENCH2.json:PEERS2.json ...]"""
import json
import statistics
import sys


def spread(values, fmt):
    return (fmt + ' [' + fmt + '–' + fmt + ']') % (statistics.median(values), min(values), max(values))


def main():
    rounds = []
    for arg in sys.argv[1:]:
        bench_path, _, peers_path = arg.partition(':')
        bench = json.load(open(bench_path))
        peers = json.load(open(peers_path)) if peers_path else {'records': [], 'versions': {}}
        rounds.append((bench, peers))
    if not rounds:
        sys.exit(__doc__)

    def key(r):
        return (r['width'], r['height'], r['kernel'], r['border'], r['channels'], r['threads'])

    cases = []
    for r in rounds[0][0]['records']:
        if r['side'] == 'convlab' and r['method'].startswith('auto') and key(r) not in cases:
            cases.append(key(r))
    peer_names = []
    for _, peers in rounds:
        for p in peers['records']:
            if p['peer'] not in peer_names:
                peer_names.append(p['peer'])
    versions = rounds[0][1].get('versions', {})
    in_process = 'OpenCV %s in process' % rounds[0][0].get('machine', {}).get('opencv_version', '')
    head = ['case', 'threads', 'ours, auto (ms)', '% of copy', 'ratio to ' + in_process]
    head += ['ratio to %s %s' % (n, versions.get(n, '')) if n in versions else 'ratio to ' + n for n in peer_names]
    print('| ' + ' | '.join(head) + ' |')
    print('|' + '---|' * len(head))
    for c in cases:
        ours, bw, cv, methods = [], [], [], set()
        per_peer = {n: [] for n in peer_names}
        for bench, peers in rounds:
            o = next((r for r in bench['records'] if key(r) == c and r['side'] == 'convlab'
                      and r['method'].startswith('auto')), None)
            if not o:
                continue
            ours.append(o['median_ms'])
            bw.append(o['bandwidth_pct'])
            methods.add(o['method'][5:-1])
            if o.get('ratio_vs_opencv') is not None:
                cv.append(o['ratio_vs_opencv'])
            for p in peers['records']:
                if key(p) == c and p['peer'] in per_peer and p.get('ratio') is not None:
                    per_peer[p['peer']].append(p['ratio'])
        w, h, k, b, ch, t = c
        cells = ['%dx%d %s %s %dch' % (w, h, k, b, ch), str(t),
                 spread(ours, '%.1f') + ' (' + '/'.join(sorted(methods)) + ')', '%.0f' % statistics.median(bw),
                 ('**' + spread(cv, '%.2f') + '**') if cv else '—']
        cells += [('**' + spread(v, '%.2f') + '**') if v else '—' for v in per_peer.values()]
        print('| ' + ' | '.join(cells) + ' |')
    print('\n%d rounds' % len(rounds))


if __name__ == '__main__':
    main()
