"""``lorasched profile``: measure LoRA fine-tuning throughput and memory into a table.

* :mod:`.harness` — times a workload over configurations and writes a measured table;
* :mod:`.torch_backend` — the PyTorch + PEFT workload (needs torch, optional);
* :mod:`.table` — the measured table's CSV format and its reader.
"""
