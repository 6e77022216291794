"""Review tables: a data room's documents x a checklist's questions, every cell a run.

- `checklist`: checklists as text ("Label: question" lines), the built-in contract checklist, and
  the kind of short answer a question wants.
- `short_answer`: a reviewed run → the cell's short answer (the characters of a verified quote
  that state the fact, normalised beside them; yes citing its clause; or "not found").
- `cells`: the engine version a cell was answered by, why a cell is stale, and a cell as a reader
  sees it (the reviewer's correction wins).

Pure: no store, no PDF, no jobs. workbench.service wires them (Workbench.create_table, …)."""
