"""Type stubs of the native module (Rust, PyO3)."""

from typing import Any, Dict, List, Optional, Union

LABEL_FIELDS: List[str]

class Label:
    """The safety sticker on one tool call (immutable)."""

    @property
    def safety_label(self) -> str:
        """``"safe"``, ``"destructive"`` or ``"unknown"``."""
    @property
    def blast_radius(self) -> str:
        """``"safe"``, ``"low"``, ``"medium"``, ``"high"`` or ``"unknown"``."""
    @property
    def category(self) -> Optional[str]:
        """The taxonomy category, such as ``"fs-delete"``."""
    @property
    def reason(self) -> Optional[str]:
        """Why, for a person; ``None`` for an unknown label."""
    @property
    def origin(self) -> str:
        """``"classifier"`` or ``"annotation"``."""
    def metadata(self) -> Dict[str, str]:
        """The keys ``safety_label``, ``blast_radius``, ``category``, ``reason``
        that have a value: the same dict as the Rust ``Label::metadata()``."""
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class Verdict:
    """What a gate says about one call."""

    @property
    def decision(self) -> str:
        """``"allow"``, ``"ask"`` or ``"deny"``."""
    @property
    def reason(self) -> str: ...
    @property
    def source(self) -> str:
        """What decided: ``mode_balanced``, ``rule_deny``, ``profile_NAME``, …"""
    @property
    def label(self) -> Label: ...

class Gate:
    def __init__(
        self,
        mode: Optional[str] = None,
        profile: Optional[str] = None,
        compound: Optional[str] = None,
        look: bool = False,
    ) -> None: ...
    def decide_json(
        self,
        tool: str,
        args_json: str,
        hints_json: Optional[str] = None,
        cwd: Optional[str] = None,
    ) -> Verdict: ...

def classify(cmd: Union[str, bytes], cwd: Optional[str] = None) -> Label: ...
def explain_json(cmd: str, cwd: Optional[str] = None) -> str: ...
def label_tool_call_json(
    tool: str,
    args_json: str,
    hints_json: Optional[str] = None,
    cwd: Optional[str] = None,
) -> Label: ...
def classify_arrow(commands: Any, cwds: Any = None, threads: Optional[int] = None) -> Any:
    """A ``pyarrow.StructArray`` of labels for a string array."""
