"""Which litellm entry is an Artificial Analysis row's endpoint: explicit rules in order, a reviewed alias
table (identities.yaml), a guard against aliases that moved to another model, and a report of every
entry that is ambiguous, refused or unmatched. Matching never picks among candidates by their length."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

from planner.market.names import host_key, split_effort
from planner.market.sources.records import AARow, Price

_REGIONS = ("us.", "eu.", "apac.", "au.", "jp.", "global.", "us-gov.")  # Bedrock's cross-region prefixes
CONTEXT_RATIO = 1.5  # an undated alias or a name whose context differs more than this names another model
_DATED = re.compile(r"(20\d\d-?\d\d-?\d\d|(?<![\d.])2[3-9](0[1-9]|1[0-2])(?![\d.]))")


@dataclass(frozen=True)
class Matched:
    """A row's litellm entry (None: none) and the rule that found it, or why none was used."""

    price: Price | None
    rule: str  # "alias table", "release date", "host model id", "name"; "" for none
    note: str = ""  # for none: why (ambiguous, refused, no entry); for a match: what a reviewer should know


@dataclass(frozen=True)
class Alias:
    """A reviewed decision: this row's litellm entry (None: it has none), and why."""

    litellm: str | None
    why: str


@cache
def aliases() -> dict[str, Alias]:
    """The reviewed alias table shipped with the package, by "HOST / MODEL" as Artificial Analysis names them."""
    import yaml

    text = resources.files("planner.market").joinpath("identities.yaml").read_text(encoding="utf-8")
    data = yaml.safe_load(text) or {}
    return {str(k): Alias(v.get("litellm"), str(v.get("why", ""))) for k, v in (data.get("litellm") or {}).items()}


class LitellmIndex:
    """litellm's entries by provider, in their file order, with each entry's model part (the key without
    its provider prefix) and its name for the name rule."""

    def __init__(self, prices: list[Price]):
        self.by_key = {p.key: p for p in prices}
        self.by_provider: dict[str, list[Price]] = {}
        for p in prices:
            self.by_provider.setdefault(p.provider, []).append(p)

    def with_id(self, provider: str, model_id: str) -> list[Price]:
        """The provider's entries whose key is this model string, with or without a provider prefix; else
        those that are it with a Bedrock region prefix added or removed."""
        entries = self.by_provider.get(provider, [])
        same = [p for p in entries if p.key.lower() == model_id.strip().lower()]
        if same:
            return same
        want = _id_forms(model_id)
        exact = [p for p in entries if _id_forms(p.key) & want]
        if exact:
            return exact
        want = _regionless(want)
        return [p for p in entries if _regionless(_id_forms(p.key)) & want]

    def with_name(self, provider: str, name: str) -> list[Price]:
        return [p for p in self.by_provider.get(provider, []) if strict_name(p.key) == name]


def match_litellm(row: AARow, index: LitellmIndex) -> Matched:
    """The litellm entry for this row's endpoint, by the first rule that finds one (SPEC "Identities"):
    1. the alias table; 2. the host's model string with the model's release date (a dated key pins the
    snapshot measured: litellm's undated `gpt-4o` has moved on since "GPT-4o (May '24)"); 3. the host's
    model string itself (with or without a Bedrock region prefix); 4. the model's name with every qualifier
    but the effort (instruct, thinking, VL stay). Rule 3 for a "-latest" string and rule 4 are refused
    when litellm's context window differs more than 1.5x from the row's: the alias or the name now
    stands for another model. Several candidates that
    differ in a figure are ambiguous: none is used, and the report lists them."""
    alias = aliases().get(f"{row.host} / {row.model}")
    if alias is not None:
        if alias.litellm is None:
            return Matched(None, "", f"alias table: no litellm entry ({alias.why})")
        found = index.by_key.get(alias.litellm)
        return (
            Matched(found, "alias table", alias.why) if found else Matched(None, "", "alias table entry not in litellm")
        )
    provider = host_key(row.host)
    if not provider:
        return Matched(None, "", "")
    steps = []
    if row.host_model and row.released and not _DATED.search(row.host_model):
        steps.append(("release date", index.with_id(provider, f"{row.host_model}-{row.released}"), False))
    if row.host_model:
        steps.append(("host model id", index.with_id(provider, row.host_model), _moving(row.host_model)))
    steps.append(("name", index.with_name(provider, strict_name(split_effort(row.model)[0])), True))
    for rule, found, guarded in steps:
        if not found:
            continue
        if len({_figures(p) for p in found}) > 1:
            keys = ", ".join(f"'{p.key}'" for p in found)
            return Matched(None, "", f"ambiguous: litellm entries {keys} match by {rule} and differ in price or limits")
        price = found[0]
        if guarded and (why := _moved(row, price)):
            return Matched(None, "", f"refused litellm '{price.key}' (by {rule}): {why}")
        return Matched(price, rule)
    return Matched(None, "", "")


def _moving(model_id: str) -> bool:
    """A host model string that names whatever the host serves today ("mistral-medium-latest")."""
    return model_id.strip().lower().endswith(("-latest", ":latest"))


def _moved(row: AARow, price: Price) -> str | None:
    """Why litellm's entry is another model than the row's: their context windows differ more than 1.5x."""
    if (
        row.context
        and price.context
        and max(row.context, price.context) > CONTEXT_RATIO * min(row.context, price.context)
    ):
        return (
            f"its context window is {price.context:,} tokens, the measured model's {row.context:,}: "
            "the key now names another model"
        )
    return None


def _figures(p: Price) -> tuple:
    """What an entry brings to an offering: two entries alike in these are one price under two keys."""
    tiers = tuple((t.name, t.input, t.output, t.cached_input) for t in p.tiers)
    return (p.input, p.output, p.cached_input, p.context, p.rpm, p.tpm, tiers, p.deprecated)


def _id_forms(model_id: str) -> set[str]:
    """A model string as litellm or a host may write it: lower case, with and without one leading
    provider prefix (`mistral/`, `models/`)."""
    s = model_id.strip().lower()
    return {s, s.split("/", 1)[1]} if "/" in s else {s}


def _regionless(forms: set[str]) -> set[str]:
    return {next((f[len(r) :] for r in _REGIONS if f.startswith(r)), f) for f in forms}


def strict_name(name: str) -> str:
    """A model name for the name rule: lower case, the part after the last "/", "2p6" read as 2.6, every run
        of spaces, dots, underscores and colons one "-", a final "latest" dropped (the guard catches an alias that
    moved). Unlike the loose normalisation, no other word is dropped."""
    s = name.strip().lower().rsplit("/", 1)[-1]
    s = re.sub(r"(\d)p(\d)", r"\1.\2", s)
    s = re.sub(r"[()]", " ", s)
    words = [w for w in re.split(r"[\s._:-]+", s) if w]
    return "-".join(words[:-1] if words[-1:] == ["latest"] else words)
