"""Presentation: :mod:`.plots` (plotly figures of results and sweeps), :mod:`.widgets` (the
ipywidgets explorer of bids and dual prices) and :mod:`.bench` (commands that print
benchmark figures). Nothing here changes a computed number; the sweep cells' keys leave it
out."""
