"""The explorer: :mod:`.widgets` (ipywidgets over pdFTSP's bids and dual prices) and
:mod:`.app` (one view per system, served live by Voila: ``lorasched explore``)."""
