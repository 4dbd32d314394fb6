"""bench/bench_floor.py's gate: each target is judged on the ratio of the medians; the per-round ratios give the
spread."""

from __future__ import annotations

from typing import Any

from bench.bench_floor import GRPC_MIN, INPROCESS_MAX, LINEAR_MAX, grpc_linear, paired, spread, targets


def _row(n: int, ours_rps: list[float], floor_rps: list[float]) -> dict[str, Any]:
    rps = {"ours": spread(ours_rps), "floor": spread(floor_rps)}
    return {
        "n": n,
        "rps": rps,
        "us_per_resource": {k: spread([1e6 / x for x in v]) for k, v in (("ours", ours_rps), ("floor", floor_rps))},
        "ratio": rps["ours"]["median"] / rps["floor"]["median"],
    }


def test_each_target_is_met_or_missed_on_the_ratio_of_medians() -> None:
    inproc = {"n": 1000, "total_us": {"ours": spread([1100.0, 1150.0, 1300.0]), "floor": spread([1000.0] * 3)}}
    rows = [
        _row(100, [200.0] * 3, [210.0] * 3),
        _row(1000, [180.0] * 3, [210.0] * 3),
        _row(10000, [190.0] * 3, [200.0] * 3),
    ]
    linear = [
        {"n": 100, "total_us": {"ours": spread([1000.0, 1010.0, 990.0]), "floor": spread([900.0] * 3)}},
        {"n": 10000, "total_us": {"ours": spread([1160.0, 1170.0, 1180.0]), "floor": spread([950.0] * 3)}},
    ]
    found = targets(inproc, rows, linear)
    assert [(round(x["ratio"], 3), x["met"]) for x in found] == [
        (1.15, True),  # in process: 1150 / 1000, at the bound
        (round(180 / 210, 3), False),  # gRPC 1,000: 0.857 < 0.90
        (0.95, True),  # gRPC 10,000
        (1.17, False),  # linear, CPU in process: 1170 / 1000 > 1.15 (not the gRPC rows' 1.053)
    ]
    assert found[-1]["floor"] == "floor's own: 1.06"  # 950 / 900
    assert (INPROCESS_MAX, GRPC_MIN, LINEAR_MAX) == (1.15, 0.90, 1.15)
    found = targets(inproc, rows, [linear[0], {**linear[1], "total_us": linear[0]["total_us"]}])
    assert (found[-1]["ratio"], found[-1]["met"]) == (1.0, True)


def test_grpc_wall_linear_is_reported_for_both_sides() -> None:
    rows = [_row(100, [200.0] * 3, [250.0] * 3), _row(10000, [160.0] * 3, [200.0] * 3)]
    assert grpc_linear(rows) == {"ours": 1.25, "floor": 1.25}


def test_per_round_ratios_pair_the_sides_of_each_round() -> None:
    assert paired([110.0, 90.0, 100.0], [100.0, 100.0, 80.0]) == {"median": 1.1, "min": 0.9, "max": 1.25, "n": 3}
