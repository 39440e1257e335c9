// `tidepool trace plot FILE [--out PNG]`: a trace as a timeline picture (gnuplot).
//
// Per trace, two panels over the same time axis (milliseconds since the statement
// began):
//   - above: I/Os in flight, and each read stream's look-ahead distance, as steps;
//   - below: one lane per thread (query, parallel workers, I/O workers). In the lower
//     half of a lane, the I/Os the thread issued, packed into rows like a Gantt chart
//     (grey from staged to reaped, blue while in flight), so the depth of the queue is
//     the height of the blue; in the upper half what the thread itself ran: system
//     calls (orange), completions (green), waits (red).
// Several traces (a contrast: prefetch off and on) are drawn one above the other on
// one time scale, so the faster one is visibly shorter.
#pragma once

#include <string>
#include <vector>

#include "tools/trace/trace_data.h"

namespace tp::trace {

struct PlotPanel {
  const TraceData* trace = nullptr;
  std::string title;  // empty: the trace's statement
};

// Writes `png_path`, with the gnuplot script and data beside it (<png minus .png>.gp,
// .dat) so that a reader can restyle it. Throws tp::Error when gnuplot fails.
void plot_traces(const std::vector<PlotPanel>& panels, const std::string& png_path);

}  // namespace tp::trace
