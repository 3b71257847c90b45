"""Presentation: plotly figures of results (:mod:`.plots`, :mod:`.titan`, :mod:`.allpass`), the
explorer (:mod:`.widgets`, :mod:`.app`) and benchmarks (:mod:`.bench`, :mod:`.bench_scale`,
:mod:`.bench_titan`). Nothing here changes a computed number; the sweep cells' keys leave it
out.
"""
