#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Markdown summary of a convlab-bench JSON file: for each case, our auto method against the
OpenCV function it is compared with, at each thread count, with the ratio ours/OpenCV; each time
is the median with [fastest–slowest] of its runs.
Optionally adds the peers.py JSON (scipy, PyPI OpenCV) ratios.
Usage: summarize.py BENCH.json [PEERS.json]"""
import json
import sys


def spread(record):
    """The fastest and slowest of the record's timed runs, around its median."""
    runs = record.get('runs_ms') or [record['median_ms']]
    return '[%.1f–%.1f]' % (min(runs), max(runs))


def main():
    bench = json.load(open(sys.argv[1]))
    recs = bench['records']
    cases = []
    for r in recs:
        key = (r['width'], r['height'], r['kernel'], r['border'], r['channels'])
        if key not in cases:
            cases.append(key)
    threads = sorted({r['threads'] for r in recs})
    head = '| case | ' + ' | '.join('auto, %d thr (ms) | OpenCV 4.6 (ms) | ratio' % t for t in threads) + ' |'
    print(head)
    print('|' + '---|' * (1 + 3 * len(threads)))
    for key in cases:
        w, h, k, b, c = key
        cells = ['%dx%d %s %s %dch' % (w, h, k, b, c)]
        for t in threads:
            rows = [r for r in recs if (r['width'], r['height'], r['kernel'], r['border'], r['channels']) == key
                    and r['threads'] == t]
            ours = next((r for r in rows if r['side'] == 'convlab' and r['method'].startswith('auto')), None)
            peer = next((r for r in rows if r['side'] != 'convlab' and ours and r['method'] == ours['ratio_against']),
                        None)
            if ours and peer:
                cells += ['%.1f %s (%s, %.0f%% of copy)' % (ours['median_ms'], spread(ours), ours['method'][5:-1],
                                                            ours['bandwidth_pct']),
                          '%.1f %s %s' % (peer['median_ms'], spread(peer), peer['method'].replace('cv::', '')),
                          '**%.2f**' % ours['ratio_vs_opencv']]
            else:
                cells += ['—', '—', '—']
        print('| ' + ' | '.join(cells) + ' |')


if __name__ == '__main__':
    main()
