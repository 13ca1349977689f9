"""Reports as typed Python objects, mirroring the JSON report (schema version 1).

Every object keeps the JSON it was read from (``.json``); attributes are the
schema's keys. ``Report`` renders itself: ``str()`` is the text report,
``_repr_html_()`` the HTML report (a notebook shows it), ``to_json()`` the JSON the
CLI writes, byte for byte.
"""
from __future__ import annotations

import json as _json
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from . import _core


@dataclass(frozen=True)
class Location:
    """Where something was read: an input and its 1-based line."""
    input: str
    line: int
    who: str = ""

    @classmethod
    def from_json(cls, j: Dict[str, Any]) -> "Location":
        return cls(j.get("input", ""), j.get("line", 0), j.get("who", ""))

    def __str__(self) -> str:
        return f"{self.input}:{self.line}" if self.line else self.input  # line 0: an input of no lines


@dataclass(frozen=True)
class Alternative:
    """A cause another rule concluded, less sure than the best one."""
    cause: str
    confidence: float
    rule: str
    evidence: List[str]


@dataclass(frozen=True)
class Incident:
    """One failure, however many replicas, hosts or retries printed it."""
    kind: str
    code: str
    title: str
    occurrences: int
    first: Location
    cause: str
    confidence: float
    summary: str
    evidence: List[str]
    advice: List[str]
    also_consider: List[Dict[str, str]]  # {"advice", "why"}: tips that rank low for this incident
    fit: str  # what would fit (a batch share, a device count) with its assumption; "" when unknown
    docs: List[str]
    rule: str
    facts: Dict[str, Any]
    printed: Dict[str, str]
    derived: Dict[str, Any]
    replicas: List[int]
    partitions: List[int]
    ranks: List[int]
    hosts: List[str]
    devices: List[str]
    allocations: List[Dict[str, Any]]
    allocation_groups: List[Dict[str, Any]]
    series: Optional[Dict[str, Any]]
    history: Dict[str, Any]
    alternatives: List[Alternative]
    outliers: List[Dict[str, Any]]
    consequence_of: Optional[int]
    relation: str
    excerpt: List[str]
    seen: Dict[str, Any]  # inputs (indexes) it occurred in, first_time, last_time, days
    json: Dict[str, Any] = field(repr=False, compare=False)
    record: bool = False  # read from an allocator's record (a memory snapshot) alone, not a log
    records: List[Location] = field(default_factory=list)  # memory snapshots joined into it
    # The OOM ended its job: no work (steps, compiles) after its last occurrence.
    ended_job: bool = True
    # What came after it: went_on, work, steps, lines, seconds, last (docs/json-output.md).
    after: Dict[str, Any] = field(default_factory=dict)
    # When it ran out: load, compile, warmup, step, eval, checkpoint, graph_capture,
    # kv_cache or unknown; phase_evidence says what decided it (docs/json-output.md).
    phase: str = "unknown"
    phase_evidence: str = ""
    # The memory budget its input printed before it: [{name, bytes or value, printed,
    # source: {input, line}}] (docs/json-output.md).
    budget: List[Dict[str, Any]] = field(default_factory=list)
    # Estimates from the model's figures the log printed (parameters x bytes, the KV
    # cache a token), each naming its constants; second to the budget's own figures.
    formulas: List[str] = field(default_factory=list)

    @classmethod
    def from_json(cls, j: Dict[str, Any]) -> "Incident":
        return cls(
            kind=j["kind"], code=j["code"], title=j["title"], occurrences=j["occurrences"],
            first=Location.from_json(j["first"]), cause=j["cause"], confidence=j["confidence"],
            summary=j["summary"], evidence=list(j["evidence"]), advice=list(j["advice"]),
            also_consider=list(j.get("also_consider", [])), fit=j.get("fit", ""), docs=list(j["docs"]),
            rule=j["rule"], facts=dict(j["facts"]), printed=dict(j["printed"]), derived=dict(j["derived"]),
            replicas=list(j["replicas"]), partitions=list(j["partitions"]), ranks=list(j["ranks"]),
            hosts=list(j["hosts"]), devices=list(j["devices"]), allocations=list(j["allocations"]),
            allocation_groups=list(j["allocation_groups"]), series=j.get("series"), history=dict(j["history"]),
            alternatives=[Alternative(a["cause"], a["confidence"], a["rule"], list(a["evidence"]))
                          for a in j["alternatives"]],
            outliers=list(j["outliers"]), consequence_of=j.get("consequence_of"), relation=j.get("relation", ""),
            excerpt=list(j["excerpt"]), seen=dict(j.get("seen", {})), json=j,
            record=j.get("record", False), records=[Location.from_json(r) for r in j.get("records", [])],
            ended_job=j.get("ended_job", True), after=dict(j.get("after") or {}),
            phase=(j.get("phase") or {}).get("name", "unknown"), phase_evidence=(j.get("phase") or {}).get("evidence", ""),
            budget=list(j.get("budget") or []), formulas=list(j.get("formulas") or []))

    def fact(self, name: str, default: Any = None) -> Any:
        """A fact read from the log, else one oomlens derived, else default."""
        return self.facts.get(name, self.derived.get(name, default))

    def __repr__(self) -> str:
        # One line whatever the dump holds (a dataclass repr of a 5,000-entry listing
        # ran to megabytes); the fields are all there to read.
        what = f"{self.code} {self.kind}" if self.code else self.kind
        program = f", program={self.facts['program']!r}" if "program" in self.facts else ""
        times = "1 occurrence" if self.occurrences == 1 else f"{self.occurrences:,} occurrences"
        went_on = "" if self.ended_job else ", the job went on after it"
        phase = "" if self.phase == "unknown" else f", in {self.phase}"
        return (f"<oomlens.Incident {what}: {self.cause} ({self.confidence:.2f}){program}, {times}, "
                f"first at {self.first}{phase}{went_on}>")


@dataclass(frozen=True)
class Input:
    """One input as read."""
    name: str
    lines: int
    bytes: int
    ok: bool
    record: str = ""  # what the input was when no log ("memory snapshot"); "" a log


@dataclass(frozen=True)
class Problem:
    """Something skipped or unreadable, with where and what to do."""
    severity: str
    where: str
    message: str
    help: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}" + (f" (help: {self.help})" if self.help else "")


class Report:
    """What oomlens found in one or more logs."""

    def __init__(self, core: "_core.Report", read_all: bool = True):
        self._core = core
        self.json: Dict[str, Any] = _json.loads(core.json())
        self.schema_version: int = self.json["schema_version"]
        self.oomlens_version: str = self.json["oomlens_version"]
        self.inputs = [Input(i["name"], i["lines"], i["bytes"], i["ok"], i.get("record", ""))
                       for i in self.json["inputs"]]
        self.incidents = [Incident.from_json(i) for i in self.json["incidents"]]
        # Memory held, from allocators' records that joined no incident (a JAX device
        # memory profile, a PyTorch snapshot with no OOM in its trace): not OOMs.
        self.memory_records = [Incident.from_json(i) for i in self.json.get("memory_records", [])]
        # The memory budget each input printed, failed or not: [{input, budget: [...]}].
        self.budgets: List[Dict[str, Any]] = list(self.json.get("budgets", []))
        self.problems = [Problem(p["severity"], p["where"], p["message"], p.get("help", ""))
                         for p in self.json["problems"]]
        self.read_all = read_all and all(i.ok for i in self.inputs)

    @classmethod
    def from_json(cls, text: str) -> "Report":
        """A report written with --format json (or to_json()), read back."""
        return cls(_core.read_report(text))

    def __bool__(self) -> bool:  # a report is truthy when it found an OOM
        return bool(self.incidents)

    def __len__(self) -> int:
        return len(self.incidents)

    def __iter__(self):
        return iter(self.incidents)

    def __str__(self) -> str:
        return self._core.text(False)

    def __repr__(self) -> str:
        causes = ", ".join(f"{i.kind}:{i.cause}" for i in self.incidents[:3])
        more = ", ..." if len(self.incidents) > 3 else ""
        return f"<oomlens.Report: {len(self.incidents)} incident(s) [{causes}{more}]>"

    def to_json(self) -> str:
        """The JSON report, exactly as `oomlens --format json` writes it."""
        return self._core.json()

    def to_text(self, color: bool = False) -> str:
        return self._core.text(color)

    def to_html(self) -> str:
        return self._core.render("html")

    def to_markdown(self) -> str:
        return self._core.render("markdown")

    def render(self, format: str) -> str:
        """The report in any format of --format: text, json, markdown, html, sarif, github ..."""
        return self._core.render(format)

    def _repr_html_(self) -> str:
        # A notebook puts this into its own page: one <div>, its styles scoped to it
        # (the whole page of to_html() restyled the notebook's body, headings and tables).
        return self._core.html_fragment()

    def fleet(self) -> "FleetReport":
        """The report summarised by failure across its inputs, each input a job (--fleet)."""
        from .fleet import FleetReport
        return FleetReport(self)


class Diff:
    """Two runs compared: incidents that appeared or vanished, numbers that moved."""

    def __init__(self, rendered: Dict[str, str]):
        self._text = rendered["text"]
        self._json = rendered["json"]
        self.json: Dict[str, Any] = _json.loads(self._json)

    def __str__(self) -> str:
        return self._text

    def to_json(self) -> str:
        return self._json
