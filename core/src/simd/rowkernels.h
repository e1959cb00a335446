// SPDX-License-Identifier: GPL-3.0-or-later
// The hot loops of the spatial methods and of unpacking 8/16-bit samples, written once
// (rowkernels.inc) and compiled three times: AVX-512, x86-64-v3 (AVX2 + FMA) and the baseline,
// chosen at run time by CPU features, so one binary runs on any x86-64 and uses the wide units
// where they exist.
#pragma once

#include <cstddef>

namespace convlab::detail {

struct RowKernels {
    // out[x] = scale * sum_{v<kh,u<kw} k[v*kw+u] * rows[v][x + u*step] + offset, for x in [0, w).
    // step is 1 for rows of one plane; C for rows of whole interleaved pixels of C channels,
    // whose taps lie C floats apart, so one call filters every channel of the row. Returns
    // whether every output is finite.
    bool (*correlate2d)(const float* const* rows, const float* k, int kw, int kh, int step, int w, float scale,
                        float offset, float* out);
    // The same for two consecutive output rows: rows[0..kh] (kh+1 rows), out0 from rows 0..kh-1,
    // out1 from rows 1..kh. With `stream`, outputs go to memory past the caches where the rows
    // are vector-aligned (for outputs larger than the last-level cache: outputsBypassCaches).
    // `ahead` (floats, 0 for none): the rows the next call reads first lie this far past
    // rows[kh - 1] and rows[kh]; they are prefetched as these are read (RowSpan::rowStep).
    bool (*correlate2dPair)(const float* const* rows, const float* k, int kw, int kh, int step, int w, float scale,
                            float offset, float* out0, float* out1, bool stream, std::ptrdiff_t ahead);
    // The same for four consecutive output rows: rows[0..kh+2], out[j] from rows j..j+kh-1, each
    // loaded vector feeding up to four outputs; `ahead` as above, for rows[kh-1..kh+2]. Where
    // prefersQuad(kw, kh) is false (or kh < 3), two correlate2dPair calls. The same bits as
    // correlate2d and correlate2dPair give each output row.
    bool (*correlate2dQuad)(const float* const* rows, const float* k, int kw, int kh, int step, int w, float scale,
                            float offset, float* const* out, bool stream, std::ptrdiff_t ahead);
    // Whether this build's correlate2dQuad is faster than pairs for a kw x kh kernel (measured).
    bool (*prefersQuad)(int kw, int kh);
    // out[x] = sum_{u<kw} k[u] * in[x + u*step] (step as for correlate2d); the row the next call
    // reads lies `ahead` floats past `in` (0: unknown), prefetched as this one is read.
    void (*filterRow)(const float* in, const float* k, int kw, int step, int w, float* out, std::ptrdiff_t ahead);
    // out[x] = (accumulate ? out[x] : 0) + sum_{v<kh} k[v] * rows[v][x]
    void (*combineRows)(const float* const* rows, const float* k, int kh, int w, float* out, bool accumulate);
    // The same for n (1..4) consecutive output rows: rows[0 .. kh+n-2], out[j] from rows j..j+kh-1;
    // each row read feeds every output that uses it. The same bits as n combineRows calls.
    void (*combineRowsUpTo4)(const float* const* rows, const float* k, int kh, int n, int w, float* const* out,
                             bool accumulate);
    // combineRowsUpTo4 without accumulating, for a separable run's only component: returns a bit
    // per output row that holds a non-finite value (checked as stored, not read again); with
    // `stream`, written past the caches where the rows are vector-aligned (outputsBypassCaches).
    unsigned (*combineRowsUpTo4Final)(const float* const* rows, const float* k, int kh, int n, int w,
                                      float* const* out, bool stream);
    // out[x] = scale * in[x] + offset
    void (*scaleOffset)(const float* in, int w, float scale, float offset, float* out);
    // out[x] = in[x * step] for step 1..4: one channel of interleaved 8- or 16-bit samples.
    void (*unpack8)(const unsigned char* in, int step, int w, float* out);
    void (*unpack16)(const unsigned short* in, int step, int w, float* out);
    // out[x] = in[x * step] for step 1..4: one channel of interleaved float samples.
    void (*gatherFloats)(const float* in, int step, int w, float* out);
    // out[x * n + c] = planes[c][x] for n (2..4) planes: whole interleaved pixels. With `stream`,
    // written past the caches from the row's first vector boundary (outputsBypassCaches).
    void (*interleaveFloats)(const float* const* planes, int n, int w, float* out, bool stream);
    // spectrum[i] *= kernel[i] for n complex values, each stored as (re, im).
    void (*multiplySpectrum)(float* spectrum, const float* kernel, std::size_t n);
    // out[x] = scale * in[x] + offset (fused where the build has FMA); returns whether every
    // output is finite. With `stream`, the vector-aligned part goes past the caches.
    bool (*cropScaled)(const float* in, int w, float scale, float offset, float* out, bool stream);
    const char* isa;
};

// The best set for this CPU.
const RowKernels& rowKernels();

// Whether outputs of this many bytes are better written past the caches: more than the
// last-level cache holds, so the lines written would only push out the input rows still to be
// read, and each would first be read from memory. CONVLAB_STREAMING=0 says no to every size.
bool outputsBypassCaches(std::size_t bytes);

// For the tests: while one is alive, outputsBypassCaches answers `streams` for every size (as
// CONVLAB_STREAMING does for a whole process), so a test can compare a streamed run with a
// cached one of the same output bit for bit. Not while other threads are starting runs.
class StreamingForcedForTests {
public:
    explicit StreamingForcedForTests(bool streams);
    ~StreamingForcedForTests();
    StreamingForcedForTests(const StreamingForcedForTests&) = delete;
    StreamingForcedForTests& operator=(const StreamingForcedForTests&) = delete;

private:
    int previous_;
};

} // namespace convlab::detail
