"""Which gateway ids are real (SPEC "Exports that deploy"): every model id, provider slug and reasoning
effort an export writes is looked up in the gateways' own lists, never guessed.

The lists (the package's extract of catalogs/sources/, planner/market/data/gateway_lists.json, or a
folder given with `--sources`):

- litellm's model map (`litellm_model_prices_and_context_window.json`, the file litellm ships as
  `model_prices_and_context_window_backup.json`): keys with `litellm_provider`, `mode` and the
  reasoning flags litellm itself reads (`supports_reasoning`, `supports_<effort>_reasoning_effort`,
  `reasoning_effort_levels`).
- OpenRouter's models listing (`GET /api/v1/models`: ids, `hugging_face_id`, `supported_parameters`).
- OpenRouter's provider list (`GET /api/v1/providers`: `slug`, `name`).

An offering's id for a gateway: its catalog `gateway` field when the list has it; otherwise the first
candidate derived from the catalog's `model` (only when it is written as an id: no spaces or
brackets, never a display name), its host and the other gateway's known id that the list has. A
host's OpenRouter slug: the endpoint or host when it is a slug, else the one provider whose slug or
name is the host's name (letters and digits, a trailing "ai" or "cloud" ignored: moonshot is Moonshot
AI's `moonshotai`, gmi is GMICloud's `gmicloud`). Whatever is not found is reported, never filled in.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from planner.core.errors import InputError, Setting
from planner.core.files import read_input
from planner.market.names import HOST_ALIASES

EXTRACT = "gateway_lists.json"  # the package's copy of the lists (planner/market/data/, gateway_lists.py)
PROVIDERS_FILE = "litellm_providers.json"  # the provider prefixes litellm's Router routes

# Per list, the file names looked for in a sources folder: the names shipped in catalogs/sources/
# and those `planner catalog fetch` saves. A pattern with * takes the last match by name (the newest date).
SOURCE_FILES: dict[str, tuple[str, ...]] = {
    "litellm": (
        "litellm_model_prices_and_context_window.json",
        "model_prices_and_context_window.json",
        "model_prices_and_context_window_backup.json",
    ),
    "openrouter_models": ("openrouter_models.json", "openrouter_models_*.json"),
    "openrouter_providers": ("openrouter_providers.json", "openrouter_providers_*.json"),
}
SOURCE_WHAT = {
    "litellm": "litellm's model map",
    "openrouter_models": "OpenRouter's models listing",
    "openrouter_providers": "OpenRouter's provider list",
}

# litellm's reasoning_effort values: litellm.types.llms.openai.REASONING_EFFORT (litellm 1.110.2).
LITELLM_EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh", "max")
# OpenRouter's reasoning.effort values (https://openrouter.ai/docs/guides/best-practices/reasoning-tokens).
OPENROUTER_EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh")
# Words a mode name may have beside one effort word ("reasoning-high-effort" is high).
MODE_WORDS = {"reasoning", "thinking", "think", "effort", "adaptive"}
NEGATIONS = {"non", "no", "without", "off"}
# litellm's per-effort flags in the model map; medium and high need none (litellm's
# reasoning_effort_capability: minimal and low are refused only on an explicit false).
EFFORT_FLAGS = {
    "none": "supports_none_reasoning_effort",
    "minimal": "supports_minimal_reasoning_effort",
    "low": "supports_low_reasoning_effort",
    "xhigh": "supports_xhigh_reasoning_effort",
    "max": "supports_max_reasoning_effort",
}
CHAT_MODES = {"chat", "responses"}
FIREWORKS_PREFIX = "accounts/fireworks/models/"


@dataclass(frozen=True)
class Sources:
    litellm: dict[str, dict[str, Any]]  # model-map key -> entry
    or_models: dict[str, dict[str, Any]]  # OpenRouter model id -> listing entry
    or_providers: dict[str, str]  # OpenRouter provider slug -> name
    routable: frozenset[str] = frozenset()  # the provider prefixes litellm's Router routes
    litellm_version: str = ""  # the litellm release those providers are from
    files: dict[str, Path] = field(default_factory=dict)  # empty: the package's own copy

    # ------------------------------------------------------------------ litellm
    def litellm_entry(self, model: str) -> dict[str, Any] | None:
        """The map's entry for a litellm model string, or None when litellm's map does not know it. A key
        serves as itself or behind its provider ("openai/gpt-5.4-nano" is the key "gpt-5.4-nano" of
        provider openai); "openrouter/<id>" is litellm's OpenRouter provider with an id of OpenRouter's
        listing. Only chat models count."""
        entry = self.litellm.get(model)
        if entry is None and "/" in model:
            provider, rest = model.split("/", 1)
            bare = self.litellm.get(rest)
            if bare is not None and _provider(bare) == provider:
                entry = bare
            elif provider == "openrouter" and rest in self.or_models:
                return {"litellm_provider": "openrouter", "mode": "chat", "openrouter": self.or_models[rest]}
        if entry is None or entry.get("mode") not in CHAT_MODES:
            return None
        return entry

    def litellm_providers(self) -> set[str]:
        return self._providers

    @cached_property
    def _providers(self) -> set[str]:
        return {_provider(e) for e in self.litellm.values()} - {""}

    def litellm_route(self, model: str) -> tuple[str | None, str]:
        """The model string litellm's Router is given for a known id, with why not: the Router picks the
        provider by the id's first part, so that part must be the entry's own provider and one the Router
        routes (litellm's provider list or its JSON-configured providers). An id without it is written
        `<provider>/<id>` ("gpt-5.4-nano" is "openai/gpt-5.4-nano"); a provider the Router does not route
        (bedrock_converse, anyscale in litellm 1.110) is no route."""
        entry = self.litellm_entry(model)
        if entry is None:
            return None, f"'{model}' is not in litellm's model map"
        provider = _provider(entry)
        if not self.routable:  # lists with no provider list (a folder of older files): trust the map
            return model, ""
        if provider not in self.routable:
            release = f"litellm {self.litellm_version}" if self.litellm_version else "litellm"
            return None, f"{release}'s Router routes no provider '{provider}' (of {model})"
        return (model if model.startswith(provider + "/") else f"{provider}/{model}"), ""

    def litellm_effort(self, model: str, effort: str) -> str | None:
        """Why litellm's map says `model` does not take `reasoning_effort: effort`; None when it does.
        The map's own rule (litellm's reasoning_effort_capability): `reasoning_effort_levels` when the
        entry lists them; else a reasoning model takes medium and high, minimal and low unless its flag
        is false, none, xhigh and max only where its flag is true; an entry with no effort flag at all
        takes low, medium and high (OpenAI-style)."""
        entry = self.litellm_entry(model)
        if entry is None:
            return None  # the id is reported unknown already
        if "openrouter" in entry:
            params = entry["openrouter"].get("supported_parameters") or []
            if "reasoning" not in params and "reasoning_effort" not in params:
                return f"OpenRouter's listing gives {model.split('/', 1)[1]} no reasoning parameter"
            return None if effort in OPENROUTER_EFFORTS else f"OpenRouter documents no effort '{effort}'"
        bare = self._bare(model, entry)

        def get(key: str) -> Any:
            own = entry.get(key)
            return own if own is not None else bare.get(key)

        levels = get("reasoning_effort_levels")
        if isinstance(levels, list):
            ok = effort in levels
            why = f"litellm's map gives {model} the efforts {', '.join(levels) or 'none at all'}"
            return None if ok else why
        if not get("supports_reasoning"):
            return f"litellm's map says {model} does not reason"
        flags = {e: get(f) for e, f in EFFORT_FLAGS.items()}
        if effort in ("medium", "high"):
            return None
        if all(v is None for v in flags.values()):
            ok = effort == "low"
        elif effort in ("minimal", "low"):
            ok = flags[effort] is not False
        else:
            ok = flags.get(effort) is True
        return None if ok else f"litellm's map does not give {model} the effort '{effort}'"

    def _bare(self, model: str, entry: dict[str, Any]) -> dict[str, Any]:
        """The unprefixed twin of a provider-prefixed key, where the map often keeps the flags."""
        provider = _provider(entry)
        for key in (model, model.split("/", 1)[-1]):
            if key.startswith(provider + "/"):
                twin = self.litellm.get(key[len(provider) + 1 :])
                if twin is not None and _provider(twin) == provider:
                    return twin
        return {}

    # ------------------------------------------------------------------ OpenRouter
    def openrouter_model(self, rest: str) -> str | None:
        """The one OpenRouter id a model name found in another list stands for: the id itself, the model
        whose `hugging_face_id` it is, or the one id whose part after the slash it is (variants such as
        `:free` left aside). None when no rule gives exactly one."""
        if rest in self.or_models:
            return rest
        low = rest.lower()
        for index in (self._by_hf, self._by_name):
            found = index.get(low, ())
            if len(found) == 1:
                return found[0]
        return None

    @cached_property
    def _by_hf(self) -> dict[str, list[str]]:
        """OpenRouter ids by hugging_face_id (lower case), variants such as :free left aside."""
        out: dict[str, list[str]] = {}
        for i, m in self.or_models.items():
            if ":" not in i:
                out.setdefault(str(m.get("hugging_face_id") or "").lower(), []).append(i)
        return out

    @cached_property
    def _by_name(self) -> dict[str, list[str]]:
        """OpenRouter ids by their part after the slash (lower case), variants left aside."""
        out: dict[str, list[str]] = {}
        for i in self.or_models:
            if ":" not in i:
                out.setdefault(i.split("/", 1)[-1].lower(), []).append(i)
        return out

    def openrouter_reasoning(self, model: str) -> bool:
        params = self.or_models.get(model, {}).get("supported_parameters") or []
        return "reasoning" in params

    def openrouter_slug(self, endpoint: str, host: str) -> tuple[str | None, str]:
        """The OpenRouter provider slug of a host (the endpoint, `<host>-<variant>` from the offering id,
        first); with why not when none or several match."""
        for name in (endpoint, host):
            if name in self.or_providers:
                return name, ""
        key = _name_key(host)
        matches = sorted(s for s, n in self.or_providers.items() if key in (_name_key(s), _name_key(n)))
        if len(matches) == 1:
            return matches[0], ""
        if matches:
            return None, f"host {host} matches several OpenRouter providers ({', '.join(matches)})"
        return None, f"host {host} is no provider in OpenRouter's provider list"


def _provider(entry: dict[str, Any]) -> str:
    """The litellm provider of a map entry ("vertex_ai-language-models" is vertex_ai)."""
    p = entry.get("litellm_provider")
    return p.split("-", 1)[0] if isinstance(p, str) else ""


def _name_key(name: str) -> str:
    key = re.sub(r"[^a-z0-9]", "", name.lower())
    for suffix in ("cloud", "ai"):
        if key.endswith(suffix) and len(key) - len(suffix) >= 3:
            key = key[: -len(suffix)]
    return key


def is_id_like(model: str) -> bool:
    """A catalog `model` written as an id (gpt-5.6-sol, kimi-k2.6), not a display name ("GLM-4.7 (Reasoning)")."""
    return bool(model) and not re.search(r"[\s()\[\],]", model)


def litellm_host_providers(host: str, sources: Sources) -> list[str]:
    """The litellm providers a host can be: its name, the importer's alias (fireworks is fireworks_ai,
    together is together_ai, google is gemini), each kept only when the map has that provider."""
    known = sources.litellm_providers()
    names = [host, host.replace("-", "_"), HOST_ALIASES.get(host.replace("-", " "), "")]
    return [p for p in dict.fromkeys(names) if p in known]


# ---------------------------------------------------------------------------- modes and efforts


@dataclass(frozen=True)
class Intent:
    """What a mode name asks of the gateway: nothing (default), reasoning on at the model's default
    effort ("reasoning"), one documented effort, or nothing known (then `why`)."""

    kind: str  # default | on | effort | unknown
    effort: str | None = None
    why: str = ""


def mode_intent(mode: str) -> Intent:
    """The rule (SPEC "Exports that deploy"): a mode named by a documented effort value is that effort;
    a name of words split at - _ and spaces with exactly one effort word, the others among reasoning,
    thinking, effort and adaptive, is that effort ("reasoning-high-effort" is high); such words with no
    effort word mean reasoning on ("reasoning"); a negation (non, no) alone means effort none
    ("non-reasoning"), with an effort word it is a contradiction; anything else ("ultra") is unknown."""
    if mode == "default":
        return Intent("default")
    words = [w for w in re.split(r"[-_\s]+", mode.lower()) if w]
    efforts = [w for w in words if w in LITELLM_EFFORTS]
    negated = [w for w in words if w in NEGATIONS]
    rest = [w for w in words if w not in LITELLM_EFFORTS and w not in NEGATIONS]
    if any(w not in MODE_WORDS for w in rest):
        return Intent("unknown", why=f"mode '{mode}' names no documented reasoning effort")
    if negated and efforts:
        return Intent(
            "unknown", why=f"mode '{mode}' asks for no reasoning and for an effort: no effort value says both"
        )
    if negated:
        return Intent("effort", "none")
    if len(set(efforts)) > 1:
        return Intent("unknown", why=f"mode '{mode}' names several efforts")
    if efforts:
        return Intent("effort", efforts[0])
    return Intent("on")


# ---------------------------------------------------------------------------- loading


def load_sources(folder: Path | None) -> Sources:
    """The lists from `folder` (`--sources`), or the package's own copy (gateway_lists: the extract of
    catalogs/sources/); an input error naming the file names looked for when one is missing or is not
    what it should be. litellm's routable providers come from the folder's `litellm_providers.json`
    when it has one, else from the package."""
    if folder is None:
        return packaged_sources()
    where = Path(folder)
    files = find_lists(where, str(where))
    litellm, models, providers = read_lists(files)
    routes = where / PROVIDERS_FILE
    if routes.is_file():
        doc = _json(routes)
        if not isinstance(doc, dict) or not isinstance(doc.get("provider_list"), list):
            raise InputError.single(str(routes), "provider_list", "not litellm's provider list (a list of names)")
        routable_set, version = routable(doc), doc.get("litellm_version")
    else:
        shipped = packaged_sources()
        routable_set, version = set(shipped.routable), shipped.litellm_version
    return Sources(litellm, models, providers, frozenset(routable_set), str(version or ""), files)


def find_lists(where: Path, label: str) -> dict[str, Path]:
    """The file of each list in a sources folder (the first name of SOURCE_FILES found)."""
    if not where.is_dir():
        raise InputError.single(label, Setting("sources"), "not a folder")
    files: dict[str, Path] = {}
    for kind, names in SOURCE_FILES.items():
        found = None
        for name in names:
            matches = sorted(where.glob(name)) if "*" in name else [where / name] if (where / name).is_file() else []
            if matches:
                found = matches[-1]
                break
        if found is None:
            raise InputError.single(
                label, Setting("sources"), f"{SOURCE_WHAT[kind]} is not in it (looked for {', '.join(names)})"
            )
        files[kind] = found
    return files


def read_lists(files: dict[str, Path]) -> tuple[dict[str, dict], dict[str, dict], dict[str, str]]:
    """litellm's map (key -> entry), OpenRouter's models (id -> entry) and providers (slug -> name)."""
    litellm = _json(files["litellm"])
    if not isinstance(litellm, dict):
        raise InputError.single(str(files["litellm"]), "", "not litellm's model map (a JSON object of models)")
    models = _data(files["openrouter_models"], "id")
    providers = _data(files["openrouter_providers"], "slug")
    return (
        {k: v for k, v in litellm.items() if isinstance(v, dict) and k != "sample_spec"},
        {m["id"]: m for m in models},
        {p["slug"]: str(p.get("name") or p["slug"]) for p in providers},
    )


def routable(doc: dict[str, Any]) -> list[str]:
    """The provider prefixes litellm's Router routes, from a `litellm_providers.json` document."""
    return sorted(set(doc.get("provider_list", [])) | set(doc.get("json_providers", [])))


def packaged_text() -> str:
    """The shipped extract's text (package data: an installed planner has it)."""
    return resources.files("planner.market.data").joinpath(EXTRACT).read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def packaged_sources() -> Sources:
    """The lists the package ships (planner/market/data/gateway_lists.json), read once."""
    doc = json.loads(packaged_text())
    return Sources(
        litellm=doc["litellm"],
        or_models=doc["openrouter_models"],
        or_providers=doc["openrouter_providers"],
        routable=frozenset(doc["litellm_routable"]),
        litellm_version=str(doc.get("litellm_version") or ""),
        files={},
    )


def _json(path: Path) -> Any:
    try:
        return json.loads(read_input(path, "a source list"))
    except json.JSONDecodeError as exc:
        raise InputError.single(str(path), "", f"not valid JSON: {exc.msg}", exc.lineno, exc.colno) from None


def _data(path: Path, key: str) -> list[dict[str, Any]]:
    """The `data` list of an OpenRouter API response, every item with a string `key`."""
    doc = _json(path)
    items = doc.get("data") if isinstance(doc, dict) else None
    if not isinstance(items, list) or not all(isinstance(x, dict) and isinstance(x.get(key), str) for x in items):
        raise InputError.single(str(path), "data", f"not an OpenRouter API response (a data list with '{key}' in each)")
    return items
