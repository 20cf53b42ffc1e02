"""Same-run A/B of each speed module: the app with it and without it (`bench.without`).

Usage (from the project root; needs ``valgrind``)::

    .venv/bin/python -m bench.ab                        # every module, ~15 min
    .venv/bin/python -m bench.ab --only viewcache:view --repeat 3

Each measurement is one `bench.wsgi_calls` process under valgrind's callgrind
(the app called in-process as gunicorn's gevent worker calls it, production
settings, its own redis-server) counting the instructions per request of one
endpoint. On this shared machine CPU times of two runs a minute apart differ by
tens of percent, and even two processes taking turns batch by batch differed by
±15 % between pairs; an instruction count does not drift with the machine. For
each module the two arms run side by side, ``--repeat`` times, their order
alternating; the gain is the median of ``without / with - 1`` over the
repetitions (instructions per request with the module over those without), the
spread the range of the repetitions.

Not counted: gunicorn's own work (parsing the request, writing the answer)
and the kernel's; a gain here is the app's share, and the endpoint's
throughput gain over HTTP is that times the app's share of the worker's CPU
(docs/performance.md gives both).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

from bench.without import SWITCHES

#: (switch, phase): the endpoint each module is for.
PLAN: list[tuple[str, str]] = [
    ("dispatch", "moves"),
    ("dispatch", "view"),
    ("dispatch", "legal"),
    ("bodyread", "moves"),
    ("leanresponse", "view"),
    ("routematch", "view"),
    ("flaskapp", "hello"),
    ("doc_only", "moves"),
    ("viewcache", "view"),
    ("identity", "moves"),
    ("seatviews", "moves"),
    ("evolve", "moves"),
    ("linewriter", "hello"),
    ("hotmetrics", "moves"),
    ("gc_tuning", "moves"),
    ("leancall", "moves"),
    ("pipelining", "moves"),
]

#: Requests counted per measurement.
REQUESTS = 320


def start(
    phase: str, without: str | None, out: str, env: dict[str, str]
) -> subprocess.Popen[bytes]:
    """Start one counted measurement, its callgrind output in `out`."""
    command = ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}"]
    command += [sys.executable, "-m", "bench.wsgi_calls", "--phase", phase, "--callgrind"]
    command += ["--requests", str(REQUESTS)]
    if without:
        command += ["--without", without]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)


def per_request(process: subprocess.Popen[bytes], out: str) -> float:
    """The instructions per request of a finished measurement."""
    if process.wait():
        raise SystemExit(f"measurement failed: {process.args}")
    with open(out) as lines:
        total = next(int(m[1]) for line in lines if (m := re.match(r"totals: (\d+)", line)))
    os.unlink(out)
    return total / REQUESTS


def compare(switch: str, phase: str, repeat: int) -> tuple[float, float, list[float]]:
    """Median instructions per request with and without the module, and each
    repetition's gain in %."""
    env = dict(os.environ)
    if switch == "leancall":
        env["STORE_PIPELINING"] = "0"  # both arms: leancall's own share, unpipelined
    folder = tempfile.mkdtemp()
    withs, withouts = [], []
    for i in range(repeat):
        arms = [(None, f"{folder}/with{i}"), (switch, f"{folder}/without{i}")]
        if i % 2:
            arms.reverse()
        started = [(without, out, start(phase, without, out, env)) for without, out in arms]
        counted = {without: per_request(process, out) for without, out, process in started}
        withs.append(counted[None])
        withouts.append(counted[switch])
    gains = [(b / a - 1) * 100 for a, b in zip(withs, withouts, strict=True)]
    return statistics.median(withs), statistics.median(withouts), gains


def main() -> None:
    """Run the plan (or `--only`), print one table line per module and endpoint."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--only", nargs="*", help="switch:phase pairs")
    args = parser.parse_args()
    plan = [tuple(pair.split(":")) for pair in args.only] if args.only else PLAN
    print("| module | endpoint | with, k instr. | without, k instr. | gain % | range % |")
    print("|---|---|---|---|---|---|")
    for switch, phase in plan:
        with_, without, gains = compare(switch, phase, args.repeat)
        print(
            f"| {SWITCHES[switch][0]} | {phase} | {with_ / 1000:.0f} | {without / 1000:.0f} | "
            f"{statistics.median(gains):+.1f} | {min(gains):+.1f}..{max(gains):+.1f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
