"""Export the fine-tuned cross-encoder to ONNX and quantise it to int8 (dynamic, weights only),
the form workbench/judgment/model.py runs on onnxruntime; copies the tokenizer beside it.

    .venv-train/bin/python train/export.py --ckpt train/out/ckpt --out workbench/judgment/model
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

import torch
from onnxruntime.quantization import QuantType, quantize_dynamic
from transformers import AutoModelForSequenceClassification, AutoTokenizer


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ckpt", default="train/out/ckpt")
    ap.add_argument("--out", default="workbench/judgment/model")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    tok = AutoTokenizer.from_pretrained(args.ckpt)
    model = AutoModelForSequenceClassification.from_pretrained(args.ckpt).eval()
    model.config.return_dict = False
    enc = tok(["What law governs?"], ["This Agreement is governed by the laws of Delaware."], return_tensors="pt")
    fp32 = Path(args.ckpt) / "model-fp32.onnx"
    names = ["input_ids", "attention_mask", "token_type_ids"]
    with torch.no_grad():
        torch.onnx.export(
            model, (enc["input_ids"], enc["attention_mask"], enc["token_type_ids"]), str(fp32),
            input_names=names, output_names=["logits"], opset_version=17, dynamo=False,
            dynamic_axes={n: {0: "batch", 1: "seq"} for n in names} | {"logits": {0: "batch"}})
    quantize_dynamic(str(fp32), str(out / "model.int8.onnx"), weight_type=QuantType.QInt8)
    shutil.copy(Path(args.ckpt) / "tokenizer.json", out / "tokenizer.json")
    print("wrote", out / "model.int8.onnx", (out / "model.int8.onnx").stat().st_size, "bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
