// SPDX-License-Identifier: GPL-3.0-or-later
// Kernels designed from a frequency response: low-pass, high-pass, band-pass and band-stop
// windowed-sinc filters, separable or radially symmetric (docs/semantics.md, *Filter design*).
// They are reached as the presets lowpass, highpass, bandpass and bandstop
// ("preset:lowpass:cutoff=0.1,size=15,window=hamming"); a designed kernel's name is that
// preset text, from which designOf recovers the design while the taps are unchanged.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "convlab/image.h"
#include "convlab/kernel.h"

namespace convlab {

enum class FilterBand { LowPass, HighPass, BandPass, BandStop };
enum class DesignWindow { Rectangular, Hann, Hamming, Blackman, Kaiser };
enum class DesignShape { Separable, Radial };

// The preset names, in enum order: "lowpass", "highpass", "bandpass", "bandstop";
// "rectangular", "hann", "hamming", "blackman", "kaiser"; "separable", "radial".
const std::vector<std::string>& filterBandNames();
const std::vector<std::string>& designWindowNames();
const std::vector<std::string>& designShapeNames();

struct FilterDesign {
    FilterBand band = FilterBand::LowPass;
    // Frequencies in cycles per pixel, strictly between 0 and 0.5 (0.5 is Nyquist): the cut-off
    // of a low- or high-pass is f1; a band-pass or band-stop spans f1 < f < f2.
    double f1 = 0.1;
    double f2 = 0.25;
    int size = 15; // odd, 3..kMaxKernelSide: the kernel is size x size
    DesignWindow window = DesignWindow::Hamming;
    double beta = 8.6; // Kaiser's shape parameter, 0..50; unused by the other windows
    DesignShape shape = DesignShape::Separable;

    bool hasBand() const { return band == FilterBand::BandPass || band == FilterBand::BandStop; }
};

// Throws convlab::Error, one line naming the parameter as the preset spells it ("preset
// 'bandpass': f1=0.3 must be below f2=0.2"), for a frequency outside (0, 0.5), f1 >= f2, an
// even or out-of-range size or a beta outside 0..50.
void validateDesign(const FilterDesign& d);

// The window at t in [-1, 1]: 1 at t = 0; Hann and Blackman reach 0 at |t| = 1. Tap n of
// a design (n = -m..m from the centre, m = size / 2) is weighted by it at t = n / (m + 1), so
// no tap is spent on a zero end.
double designWindow(DesignWindow w, double beta, double t);

// The 1-D windowed-sinc low-pass of `size` taps with cut-off f (cycles/pixel), summing to 1 in
// double: the factor of the separable designs.
std::vector<double> lowPassTaps(double f, int size, DesignWindow w, double beta);

// The designed size x size kernel, named designText(d). Throws as validateDesign.
Kernel designKernel(const FilterDesign& d);

// The preset text of a design: "lowpass:cutoff=0.1,size=15,window=hamming,shape=separable"
// (",beta=..." only for Kaiser; "f1=...,f2=..." for the bands).
std::string designText(const FilterDesign& d);

// The design a preset names, or nothing when `name` is not one of filterBandNames(); throws
// convlab::Error for bad parameters as makePreset does.
std::optional<FilterDesign> designFromPreset(std::string_view name, std::string_view params);

// The design a kernel came from: its name parsed as preset text and the taps still exactly
// those designKernel gives (an edited kernel has none). The anchor does not matter.
std::optional<FilterDesign> designOf(const Kernel& k);

// The ideal response the design approximates at (fx, fy) in cycles/pixel: 1 in the pass
// region, 0 in the stop region (edges belong to the pass region).
double idealGain(const FilterDesign& d, double fx, double fy);

// The ideal gain on frequencyResponse's grid (size x size, DC at (size/2, size/2), one
// channel); logScale gives dB with 0 as kResponseFloorDb.
Image idealResponse(const FilterDesign& d, int size, bool logScale = false);

// The transition width the window gives `size` taps, in cycles/pixel: D / size with D 0.9
// (rectangular), 3.1 (Hann), 3.3 (Hamming), 5.5 (Blackman), (A - 7.95) / 14.36 for Kaiser with
// A the attenuation in dB its beta gives.
double transitionWidth(DesignWindow w, double beta, int size);

// How the achieved response meets the ideal, away from its edges: over the samples of a
// frequencyResponse grid (linear) that lie further than half the transition width from every
// edge (by radius for radial designs, by either coordinate for separable ones), the largest
// |H - 1| where the ideal passes and the largest |H| where it stops.
struct DesignFit {
    double transition = 0.0;
    double passDeviation = 0.0;
    double stopGain = 0.0;
    int passSamples = 0;
    int stopSamples = 0;
};
DesignFit measureDesign(const FilterDesign& d, const Image& linearResponse);

} // namespace convlab
