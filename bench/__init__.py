"""Benchmarks for the program, the preflight and the policy pack (``make bench``; results in RESULTS.md)."""
