"""The data behind every figure as files a reader can download, stored: one netCDF file per
page (its data as a tree of groups) and a CSV of its claims (:func:`write_page_files`), read
back by :func:`load`. Publishing them into the built book, with checksums, and the page's
links to them: :mod:`lorasched.figures.publish`. The format: :doc:`/reference/figures`.
"""

from __future__ import annotations

import hashlib
import json
import os
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import netCDF4
import numpy as np
import pandas as pd
import xarray as xr
from xarray.backends import NetCDF4DataStore
from xarray.backends.common import ArrayWriter

try:
    from xarray.backends.writers import dump_to_store
except ImportError:  # xarray before 2025.11
    from xarray.backends.api import dump_to_store

from ..model.errors import InputError
from . import allpass, pdftsp, titan
from .allpass.common import AllpassData
from .allpass.declared import Runs
from .base import Figure, atomic_file, check_size, locked

#: system -> {figure key -> Figure}: every figure that has a page
FIGURES = {"pdftsp": pdftsp.FIGURES, "titan": titan.FIGURES, "allpass": allpass.FIGURES}

#: the environment variable naming the folder the pages write their data files to
DATA_ENV = "LORASCHED_FIGURE_DATA"
#: attribute types netCDF holds as they are (others travel as JSON)
_NATIVE = (str, int, float, np.integer, np.floating)


def data_folder(size: str = "full") -> Path:
    """Where the pages write their data files: ``$LORASCHED_FIGURE_DATA/<size>`` if set,
    else ``build/figure-data/<size>`` in the source checkout (beside the cells' store,
    :func:`~lorasched.figures.base.default_store`), else a per-user cache folder."""
    check_size(size)
    if os.environ.get(DATA_ENV):
        return Path(os.environ[DATA_ENV]) / size
    repo = Path(__file__).resolve().parents[2]
    if (repo / "pyproject.toml").is_file() and (repo / "lorasched").is_dir():
        return repo / "build" / "figure-data" / size
    return Path.home() / ".cache" / "lorasched" / "figure-data" / size


def file_names(fig: Figure) -> tuple[str, str]:
    """The figure's two files, relative to a data folder: its netCDF file and its claims
    CSV (``pdftsp/fig08.nc``, ``pdftsp/fig08_claims.csv``). Pages that draw from the same
    data share its file (Allpass's pages from its runs: ``allpass/runs.nc``)."""
    return (f"{fig.system}/{fig.data_name or fig.key}.nc",
            f"{fig.system}/{fig.key}_claims.csv")


def quoted_name(fig: Figure) -> str | None:
    """The figure's table of quoted numbers, relative to a data folder
    (``pdftsp/fig04_quoted.csv``), for a figure whose prose quotes numbers it derives
    (:attr:`Figure.quotes <lorasched.figures.base.Figure.quotes>`); else None."""
    return f"{fig.system}/{fig.key}_quoted.csv" if fig.quotes else None


def page_files(fig: Figure) -> list[str]:
    """Every file of the figure's page, relative to a data folder: :func:`file_names` and,
    for a figure that quotes numbers, :func:`quoted_name`."""
    return [*file_names(fig), *([quoted_name(fig)] if fig.quotes else [])]


# --------------------------------------------------------------------------- writing


def _json_attrs(attrs: dict) -> tuple[dict, dict]:
    """``attrs`` split into those netCDF holds and those it does not (as JSON)."""
    native, other = {}, {}
    for k, v in attrs.items():
        if isinstance(v, _NATIVE) and not isinstance(v, bool):
            native[k] = v
        elif (isinstance(v, np.ndarray) and v.ndim == 1 and v.size
              and v.dtype.kind in "iuf"):
            native[k] = v
        else:
            other[k] = v.tolist() if isinstance(v, np.ndarray) else v
    return native, other


def _encodable(ds: xr.Dataset) -> xr.Dataset:
    """``ds`` with every attribute netCDF cannot hold moved into a JSON attribute
    ``lorasched_json_attrs`` (of the dataset or of the variable)."""
    ds = ds.copy()
    for name in list(ds.variables):
        native, other = _json_attrs(ds[name].attrs)
        if ds[name].dtype.kind == "O":  # text: netCDF reads it back as fixed-width
            other["lorasched_dtype"] = "object"
        ds[name].attrs = native
        if other:
            ds[name].attrs["lorasched_json_attrs"] = json.dumps(other)
    native, other = _json_attrs(ds.attrs)
    ds.attrs = native
    if other:
        ds.attrs["lorasched_json_attrs"] = json.dumps(other)
    return ds


def _leaf(obj) -> tuple[str, xr.Dataset, dict]:
    """A leaf of the tree as ``(kind, dataset, extra)``."""
    if isinstance(obj, xr.Dataset):
        return "dataset", obj, {}
    if isinstance(obj, xr.DataArray):
        return "dataarray", obj.to_dataset(name=obj.name or "values"), {
            "name": obj.name}
    if isinstance(obj, pd.DataFrame):
        default = (isinstance(obj.index, pd.RangeIndex) and obj.index.start == 0
                   and obj.index.step == 1 and obj.index.name is None)
        frame = obj if default else obj.reset_index()
        ds = xr.Dataset({f"c{i}": ("row", frame[c].to_numpy())
                         for i, c in enumerate(frame.columns)})
        index = list(obj.index.names)
        return "dataframe", ds, {"columns": [str(c) for c in frame.columns],
                                 "index": None if default else index}
    if isinstance(obj, np.ndarray):
        return "ndarray", xr.Dataset({"values": (tuple(f"d{i}" for i in range(obj.ndim)),
                                                 obj)}), {}
    raise InputError(f"figure data: cannot write a {type(obj).__name__} (a Dataset, "
                     "DataFrame, numpy array, dict, tuple or AllpassData is expected)")


def _tree(obj, leaves: list) -> dict:
    """The JSON description of ``obj``; its leaves appended to ``leaves``."""
    if isinstance(obj, AllpassData):
        return {"kind": "allpass", "size": obj.size, "results": _tree(obj.results, leaves)}
    if isinstance(obj, dict | Runs):  # Allpass's runs are read as they are written
        return {"kind": "dict", "items": [[_key(k), _tree(v, leaves)] for k, v in obj.items()]}
    if isinstance(obj, tuple | list):
        return {"kind": type(obj).__name__, "items": [_tree(v, leaves) for v in obj]}
    kind, ds, extra = _leaf(obj)
    leaves.append(ds)
    return {"kind": kind, "group": f"g{len(leaves) - 1}", **extra}


def _key(k):
    """A dict key as JSON: a string, a number, or a tuple as ``{"tuple": [...]}``."""
    if isinstance(k, tuple):
        return {"tuple": [_key(x) for x in k]}
    if isinstance(k, np.integer):
        return int(k)
    if isinstance(k, str | int | float):
        return k
    raise InputError(f"figure data: cannot write a dict key of type {type(k).__name__}")


#: a variable at least this large that is byte-for-byte the same as one written before
#: (Allpass's marketplace offer book, the same in every run of a seed) is written once, in
#: the group ``shared``, and the leaves point at it
SHARE_BYTES = 64_000


def _compressed(ds: xr.Dataset) -> dict:
    """netCDF encoding for ``ds``: every numeric variable zlib-compressed (lossless)."""
    return {v: {"zlib": True, "complevel": 6, "shuffle": True} for v in ds.data_vars
            if ds[v].dtype.kind in "iufb"}


def _share(ds: xr.Dataset, shared: dict, seen: dict) -> xr.Dataset:
    """``ds`` without its large variables already written elsewhere: each goes to
    ``shared`` once (``s0``, ``s1``, ...) and ``ds`` records where, with its dims and
    attributes, in the attribute ``lorasched_shared``."""
    moved = {}
    for name in list(ds.data_vars):
        var = ds[name].variable
        if var.nbytes < SHARE_BYTES or var.dtype.kind not in "iufb":
            continue
        digest = hashlib.sha256(str((var.dtype.str, var.shape)).encode()
                                + np.ascontiguousarray(var.values).tobytes()).hexdigest()
        if digest not in seen:
            seen[digest] = f"s{len(seen)}"
            shared[seen[digest]] = (tuple(f"{seen[digest]}_{d}" for d in var.dims),
                                    var.values)
        moved[name] = {"ref": seen[digest], "dims": list(var.dims), "attrs": var.attrs}
    if not moved:
        return ds
    ds = ds.drop_vars(list(moved))
    ds.attrs["lorasched_shared"] = json.dumps(moved)
    return ds


def _canonical(value):
    """An attribute value as plain JSON (numpy scalars and arrays as numbers and lists)."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return value


def digest(data) -> str:
    """A SHA-256 of a data tree's content: its structure, and each leaf's variables
    (name, dims, values, attributes) and attributes; the same for a tree read back."""
    leaves: list[xr.Dataset] = []
    h = hashlib.sha256(json.dumps(_tree(data, leaves)).encode())
    for ds in leaves:
        for name in sorted(ds.variables, key=str):
            var = ds.variables[name]
            h.update(f"{name}|{var.dims}|{var.shape}|".encode())
            values = var.values
            if values.dtype.kind in "OUS":
                h.update(json.dumps(values.astype(str).tolist()).encode())
            else:
                h.update(values.dtype.str.encode() + np.ascontiguousarray(values).tobytes())
            h.update(json.dumps({k: _canonical(v) for k, v in var.attrs.items()},
                                sort_keys=True, default=str).encode())
        h.update(json.dumps({k: _canonical(v) for k, v in ds.attrs.items()}, sort_keys=True,
                            default=str).encode())
    return h.hexdigest()


def _sidecar(path: Path) -> Path:
    """Where :func:`write` notes a file's digest beside it, with the file's size and
    modification time (opening a netCDF file of hundreds of groups reads every group's
    metadata: 7 s for Allpass's runs)."""
    return path.with_name(f".{path.name}.digest")


def _stamp(path: Path) -> list[int]:
    st = path.stat()
    return [st.st_size, st.st_mtime_ns]


def written_digest(path) -> str | None:
    """The content digest a data file was written with (None: no such file): from the
    note :func:`write` left beside it while the file's size and modification time are
    still those it noted, else from the file itself."""
    path = Path(path)
    note = _noted(path)
    if "digest" in note:
        return note["digest"]
    try:
        with netCDF4.Dataset(path) as root:
            return root.getncattr("lorasched_digest")
    except (OSError, AttributeError):
        return None


def write(data, path, *, figure: str = "", size: str = "", source: str | None = None) -> Path:
    """Write ``data`` (a figure's data tree) to the netCDF file ``path``: to a temporary
    name of this process first, then renamed, so that an interrupted write leaves no
    broken file and two pages writing one shared file at once (``make book`` runs two
    notebooks at a time) do not collide (HDF5 locks a file being written). ``source``:
    what the data was read from, where it says (Allpass's runs: which kept result each
    run is), noted beside the file so that a page reading the same source need not
    compute the data's digest to find the file current."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    leaves: list[xr.Dataset] = []
    tree = _tree(data, leaves)
    content = digest(data)
    root = xr.Dataset(attrs={"lorasched_figure": figure, "lorasched_size": size,
                             "lorasched_tree": json.dumps(tree),
                             "lorasched_digest": content,
                             "lorasched_version": _version()})
    nodes, shared, seen = {"/": root}, {}, {}
    for i, ds in enumerate(leaves):
        nodes[f"/g{i}"] = _share(_encodable(ds), shared, seen)
    if shared:
        nodes["/shared"] = xr.Dataset(shared)
    with atomic_file(path) as tmp:
        _to_netcdf(nodes, tmp)
    _note(path, content, source)
    return path


def _note(path: Path, content: str, source: str | None) -> None:
    """Note beside the data file ``path`` its digest, its size and modification time and,
    if given, its ``source``."""
    note = {"digest": content, "stamp": _stamp(path)}
    if source is not None:
        note["source"] = source
    with atomic_file(_sidecar(path)) as tmp:
        tmp.write_text(json.dumps(note))


def _noted(path: Path) -> dict:
    """What :func:`_note` left beside ``path`` while the file's size and modification time
    are still those it noted, else ``{}``."""
    try:
        note = json.loads(_sidecar(Path(path)).read_text())
        return note if note["stamp"] == _stamp(Path(path)) else {}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


class _DeferredWriter(ArrayWriter):
    """xarray's array writer, holding every array back until all groups are defined:
    netCDF-C rewrites the whole file's metadata each time it leaves define mode, so writing
    group by group (``DataTree.to_netcdf``) takes time quadratic in the groups (Allpass's
    520 runs: 706 s; deferred: 21 s, on 2 cores)."""

    __slots__ = ("held",)

    def __init__(self):
        super().__init__()
        self.held = []

    def add(self, source, target, region=None):
        self.held.append((source, target, region))

    def sync(self, compute=True, chunkmanager_store_kwargs=None):
        for source, target, region in self.held:
            target[region or ...] = np.asarray(source)
        self.held.clear()


def _to_netcdf(nodes: dict, path) -> None:
    """Write ``{"/": root, "/g0": ds, ...}`` as one netCDF-4 file, one group a node, every
    numeric variable compressed (:func:`_compressed`)."""
    root = NetCDF4DataStore.open(path, mode="w", format="NETCDF4")
    writer = _DeferredWriter()
    try:
        for name, ds in nodes.items():
            store = root if name == "/" else root.get_child_store(name.lstrip("/"))
            dump_to_store(ds, store, writer, encoding=_compressed(ds))
        writer.sync()
    finally:
        root.close()


def _version() -> str:
    try:
        return version("lorasched")
    except PackageNotFoundError:  # pragma: no cover - run from a source tree
        return "unknown"


# --------------------------------------------------------------------------- reading


def _decoded(ds: xr.Dataset, shared: xr.Dataset | None) -> xr.Dataset:
    moved = ds.attrs.pop("lorasched_shared", None)
    if moved is not None:
        for name, where in json.loads(moved).items():
            ds[name] = xr.Variable(tuple(where["dims"]), shared[where["ref"]].values,
                                   where["attrs"])
    for name in list(ds.variables):
        extra = ds[name].attrs.pop("lorasched_json_attrs", None)
        if extra is not None:
            extra = json.loads(extra)
            if extra.pop("lorasched_dtype", None) == "object":
                attrs = ds[name].attrs
                if name in ds.coords:
                    ds = ds.assign_coords({name: ds[name].astype(object)})
                else:
                    ds[name] = ds[name].astype(object)
                ds[name].attrs = attrs
            ds[name].attrs.update(extra)
    extra = ds.attrs.pop("lorasched_json_attrs", None)
    if extra is not None:
        ds.attrs.update(json.loads(extra))
    return ds


def _unkey(k):
    if isinstance(k, dict):
        return tuple(_unkey(x) for x in k["tuple"])
    return k


def _build(tree: dict, groups: xr.DataTree, path: Path):
    kind = tree["kind"]
    if kind == "allpass":
        return AllpassData(tree["size"], _build(tree["results"], groups, path))
    if kind == "dict":
        return {_unkey(k): _build(v, groups, path) for k, v in tree["items"]}
    if kind in ("tuple", "list"):
        items = [_build(v, groups, path) for v in tree["items"]]
        return tuple(items) if kind == "tuple" else items
    shared = groups["shared"].to_dataset() if "shared" in groups.children else None
    ds = _decoded(groups[tree["group"]].to_dataset(), shared)
    if kind == "dataset":
        return ds
    if kind == "dataarray":
        return ds[tree["name"] or "values"].rename(tree["name"])
    if kind == "ndarray":
        return ds["values"].values
    if kind == "dataframe":
        frame = pd.DataFrame({c: ds[f"c{i}"].values for i, c in enumerate(tree["columns"])})
        return frame.set_index(tree["index"]) if tree["index"] else frame
    raise InputError(f"{path}: group {tree.get('group')}: unknown kind {kind!r}")


def read(path):
    """The data tree in the netCDF file ``path`` (written by :func:`write`)."""
    path = Path(path)
    if path.is_dir():
        raise InputError(f"{path}: is a folder, not a figure's data file")
    if not path.is_file():
        raise InputError(f"{path}: no such figure data file")
    try:
        with xr.open_datatree(path, engine="netcdf4") as opened:
            groups = opened.load()
    except (OSError, ValueError) as err:
        raise InputError(f"{path}: not a netCDF file ({' '.join(str(err).split())})") \
            from None
    if "lorasched_tree" not in groups.attrs:
        raise InputError(f"{path}: a netCDF file, but not a figure's data (no attribute "
                         "lorasched_tree: write it with lorasched.figures.datafiles)")
    return _build(json.loads(groups.attrs["lorasched_tree"]), groups, path)


def load(key, folder=None, *, size: str = "full"):
    """A figure's data, read back: ``key`` is ``"<system>/<figure>"`` (e.g.
    ``"pdftsp/fig08"``, looked up in ``folder``, default :func:`data_folder` of ``size``)
    or the path of a downloaded ``.nc`` file. ``fig.claims(load(key))`` is the page's
    claims table."""
    text = str(key)
    if text.endswith(".nc") or Path(text).is_file():
        return read(text)
    system, _, name = text.partition("/")
    if system not in FIGURES or name not in FIGURES[system]:
        known = [f"{s}/{k}" for s, figs in FIGURES.items() for k in figs]
        raise InputError(f"figure data key {text!r}: not a figure; one of {known}, or the "
                         "path of a .nc file")
    folder = data_folder(size) if folder is None else Path(folder)
    return read(folder / file_names(FIGURES[system][name])[0])


# --------------------------------------------------------------------------- a page's files


def without(data, names):
    """``data`` (a dataset or a table, or a dict of them) without the variables or columns
    ``names``, where it has them; other data as it is."""
    if not names:
        return data
    if isinstance(data, dict):
        return {key: without(value, names) for key, value in data.items()}
    if isinstance(data, xr.Dataset):
        return data.drop_vars([n for n in names if n in data.data_vars])
    if isinstance(data, pd.DataFrame):
        return data.drop(columns=[n for n in names if n in data.columns])
    return data


def write_page_files(fig: Figure, data, size: str = "full", folder=None, *,
                     quoted: pd.DataFrame | None = None,
                     claims: pd.DataFrame | None = None) -> list[Path]:
    """Write a figure page's files into a data folder.

    Parameters
    ----------
    fig : Figure
        The page's figure.
    data
        What its page computed (the value of :meth:`Figure.data
        <lorasched.figures.base.Figure.data>`).
    size : str
        ``"small"`` or ``"full"``: the folder's size (default ``"full"``).
    folder : path, optional
        Where to write (default :func:`data_folder` of ``size``).
    quoted : pandas.DataFrame, optional
        For a figure that :attr:`~lorasched.figures.base.Figure.quotes`, its table of
        quoted numbers if the page computed it already (else :meth:`Figure.quoted
        <lorasched.figures.base.Figure.quoted>` computes it).
    claims : pandas.DataFrame, optional
        The claims table the page shows (its ledger's records,
        :func:`lorasched.figures.ledger.page`); else :meth:`Figure.claims
        <lorasched.figures.base.Figure.claims>` of ``data``.

    Returns
    -------
    list of pathlib.Path
        The files of :func:`page_files`, in that order: the netCDF file of ``data``
        (written once by pages that share it, and again only when its content changed),
        the claims table and, for a figure that quotes numbers, its quoted numbers.
    """
    folder = data_folder(size) if folder is None else Path(folder)
    nc, csv = file_names(fig)
    data = without(data, fig.unpublished)
    source = data.source() if hasattr(data, "source") else None
    with locked(folder / nc):  # pages sharing a file write it once
        if source is None or _noted(folder / nc).get("source") != source:
            if written_digest(folder / nc) != digest(data):
                write(data, folder / nc, figure=f"{fig.system}/{fig.data_name or fig.key}",
                      size=size, source=source)
            elif source is not None:
                _note(folder / nc, written_digest(folder / nc), source)
    (fig.claims(data) if claims is None else claims).to_csv(folder / csv, index=False)
    if fig.quotes:
        (fig.quoted(data) if quoted is None else quoted).to_csv(
            folder / quoted_name(fig), index=False)
    return [folder / name for name in page_files(fig)]
