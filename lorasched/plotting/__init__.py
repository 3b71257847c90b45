"""Plotly figures of results and sweeps, one module per system: :mod:`.pdftsp`,
:mod:`.titan`, :mod:`.allpass`. Nothing here changes a computed number."""
