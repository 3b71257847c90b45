"""An example plug-in package for lorasched: one policy per system, each a plain function
``run(arrays, rng, **options)`` declared in ``pyproject.toml``'s entry-point group
``lorasched.policies``. Nothing here is registered by hand: installing the package is enough.
"""
