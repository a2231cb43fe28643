#!/usr/bin/env python3
"""Two builds' `reconscope_bench --json` runs side by side, medians compared.

On two shared cores one run of a figure varies by 20% or more, so builds are compared on the
medians of alternating runs made in one sitting (docs/performance.md). Prints a Markdown table:
each figure's runs for either build and the change of the median, after against before.

    compare.py --before b1.json b2.json b3.json --after a1.json a2.json a3.json [--figures a,b]
"""
import argparse
import json
import statistics
import sys

# The figures docs/performance.md compares when a restructuring must stay within 10 %.
DEFAULT_FIGURES = [
    "create_per_s", "server_get_per_s", "server_list_mb_per_s", "status_patch_per_s",
    "watch_fanout_events_per_s", "informer_list_seconds", "informer_cpu_seconds",
    "informer_peak_rss_bytes", "informer_watch_events_per_s", "list_seconds",
    "list_max_stall_ms", "peak_rss_bytes", "ui_max_stall_ms", "event_latency_p99_ms",
    "noop_reconciles_per_s", "server_peak_rss_bytes", "list_speedup_vs_kubectl",
    "list_speedup_vs_python", "record_cpu_core_share", "record_file_per_received",
]


def shown(value):
    if abs(value) >= 1e6:
        return "%.0f MB" % (value / 1e6) if value > 1e7 else "%.3g" % value
    return "%.3g" % value


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", nargs="+", required=True)
    parser.add_argument("--after", nargs="+", required=True)
    parser.add_argument("--figures", help="comma-separated figure names (default: the usual)")
    args = parser.parse_args()
    runs = {}
    for side in ("before", "after"):
        runs[side] = []
        for path in getattr(args, side):
            with open(path) as f:
                runs[side].append(json.load(f))
    figures = args.figures.split(",") if args.figures else DEFAULT_FIGURES
    print("| figure | before (%d) | after (%d) | medians |" % (len(runs["before"]),
                                                               len(runs["after"])))
    print("|---|---|---|---|")
    for figure in figures:
        values = {side: [r[figure] for r in runs[side] if isinstance(r.get(figure), (int, float))]
                  for side in runs}
        if not values["before"] or not values["after"]:
            continue
        before, after = statistics.median(values["before"]), statistics.median(values["after"])
        change = "%+.1f %%" % ((after - before) / before * 100) if before else "-"
        print("| %s | %s | %s | %s |" % (figure, " / ".join(shown(v) for v in values["before"]),
                                        " / ".join(shown(v) for v in values["after"]), change))
    return 0


if __name__ == "__main__":
    sys.exit(main())
