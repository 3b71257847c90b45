"""What every system shares: :mod:`.traces` (GPU-cluster job traces, days, slots),
:mod:`.jobs` (job windows and samples), :mod:`.profiles` (published GPU and model numbers),
:mod:`.limits` (the largest magnitudes accepted), :mod:`.errors` (``InputError``,
``ResultError``), :mod:`.system` (the plug-in contract of a system), :mod:`.rules` (a
result checker as a table of named rules), :mod:`.flags` (the form of a system's
``lorasched simulate`` flags), :mod:`.libm` (``exp`` and ``log`` by the C library, so
that a seed's generated data do not depend on the CPU), :mod:`.presets` (policies that
are another with options fixed, as data) and :mod:`.docfill` (shared docstring fragments).
"""
