// `tidepool trace summary FILE`: a trace told in text. The I/Os by size and method,
// their latency percentiles (in flight: submission to result, the device's share; and
// staged to reaped, what the query saw), how much of the time how many I/Os were in
// flight, each read stream's look-ahead distance, and per thread the time spent in
// system calls, completions, waits and the rest.
#pragma once

#include <string>

#include "tools/trace/trace_data.h"

namespace tp::trace {

std::string trace_summary(const TraceData& trace);

// Percentile p (0..100) of `values` by nearest rank (0 for none); sorts them.
double percentile(std::vector<double>& values, double p);

// The share of [0, end_us] that each in-flight level held, from the I/Os'
// submission and result times: level -> microseconds.
std::map<int, double> in_flight_time(const TraceData& trace);
// The time-weighted mean of I/Os in flight over the traced span (the queue depth the
// device was given).
double mean_in_flight(const TraceData& trace);
// Each I/O's time in flight (submission to result), microseconds.
std::vector<double> in_flight_latencies(const TraceData& trace);
// Blocks the trace's reads cover.
int64_t blocks_read(const TraceData& trace);

}  // namespace tp::trace
