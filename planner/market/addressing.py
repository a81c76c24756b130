"""How a gateway addresses an option (SPEC "Exports that deploy" and "Deployability"): the model id, provider
slug and reasoning setting it is sent with, each looked up in the gateway's lists (gateway_ids), and what
is unknown about it.

One rule for two readers: `planner export` writes the ids of a plan's options (from the plan's
offering_info), and `policy.deployable_on` keeps out of the LP the options a gateway cannot address (from
the catalog's offerings). Both read an offering as its model, host and `gateway` ids.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from planner.market.gateway_ids import (
    FIREWORKS_PREFIX,
    LITELLM_EFFORTS,
    OPENROUTER_EFFORTS,
    Sources,
    is_id_like,
    litellm_host_providers,
    mode_intent,
)

AGGREGATOR = "openrouter"  # the host of an offering OpenRouter routes itself (any provider at its price)
GATEWAYS = ("litellm", "openrouter")


class OfferingFacts(Protocol):
    """What addressing reads of an offering: a plan's offering_info entry, or a catalog offering's."""

    model: str
    host: str
    gateway: Mapping[str, str]
    gateway_unlisted: list[str] | tuple[str, ...] | None


@dataclass(frozen=True)
class Facts:
    model: str
    host: str
    gateway: Mapping[str, str]
    gateway_unlisted: tuple[str, ...] = ()

    @classmethod
    def of(cls, o) -> Facts:
        """A catalog offering's facts."""
        return cls(o.model, o.host_name, dict(o.gateway), tuple(o.gateway_unlisted))


def label(offering: str, mode: str) -> str:
    return offering if mode == "default" else f"{offering}@{mode}"


@dataclass
class Target:
    """One option as a gateway sees it."""

    label: str
    model: str  # the id written: a known one, or (unknown) the catalog's gateway field or the offering id
    params: dict[str, Any] = field(default_factory=dict)  # litellm: reasoning_effort; OpenRouter: reasoning
    pinned: bool = True  # OpenRouter: served by the offering's own host (False: OpenRouter picks one)
    slug: str | None = None  # OpenRouter provider slug of a pinned offering, when known
    problems: list[str] = field(default_factory=list)
    unpriced: str = ""  # litellm: the provider that routes an id litellm's price table does not list


class Resolver:
    """Ids, slugs and efforts of offerings (by id, in `infos`), looked up once each."""

    def __init__(self, infos: Mapping[str, OfferingFacts], sources: Sources):
        self.infos, self.src = infos, sources
        self._lid: dict[str, tuple[str | None, str]] = {}
        self._known: dict[str, tuple[str | None, str]] = {}
        self._orid: dict[str, tuple[str | None, str]] = {}

    # ---------------------------------------------------------------- ids
    def litellm_id(self, offering: str) -> tuple[str | None, str]:
        """The model string litellm's Router is given: a known id whose provider the Router routes."""
        if offering not in self._lid:
            self._lid[offering] = self._litellm_id(offering)
        return self._lid[offering]

    def _litellm_id(self, offering: str) -> tuple[str | None, str]:
        known, why = self.litellm_known(offering)
        if known is None:
            unlisted = self.unlisted(offering)
            return (unlisted, "") if unlisted else (None, why)
        return self.src.litellm_route(known)

    def unlisted(self, offering: str) -> str | None:
        """The catalog's gateway.litellm id when the catalog says it is the host's own model string, which
        litellm's price table does not list (`gateway_unlisted`), and its provider is one the Router routes:
        the Router needs only the provider (`cerebras/zai-glm-4.7`); litellm then knows no price for it.
        None otherwise: an id the catalog merely states must be in the map (a typo is refused)."""
        info = self.infos.get(offering)
        given = info.gateway.get("litellm") if info else None
        if not given or "litellm" not in (info.gateway_unlisted or ()):
            return None
        if "/" not in given or self.src.litellm_entry(given) is not None:
            return None
        return given if given.split("/", 1)[0] in self.src.routable else None

    def litellm_known(self, offering: str) -> tuple[str | None, str]:
        """The first id of the offering litellm's map knows (routed or not), with why none."""
        if offering not in self._known:
            self._known[offering] = self._litellm_known(offering)
        return self._known[offering]

    def _litellm_known(self, offering: str) -> tuple[str | None, str]:
        info = self.infos.get(offering)
        if info is None:
            return None, "the plan has no offering_info for it"
        given = info.gateway.get("litellm")
        candidates = [given] if given else []
        if info.host == AGGREGATOR:
            orid, _ = self.openrouter_id(offering)
            if orid:
                candidates.append(f"openrouter/{orid}")
        tried = []
        providers = litellm_host_providers(info.host, self.src)
        if is_id_like(info.model):
            for p in providers:
                names = [f"{p}/{info.model}"] + ([f"{p}/{FIREWORKS_PREFIX}{info.model}"] if p == "fireworks_ai" else [])
                candidates += names
                tried += names
        routed = []
        for name in dict.fromkeys(candidates):
            if self.src.litellm_entry(name):
                if self.src.litellm_route(name)[0]:
                    return name, ""
                routed.append(name)
        if routed:  # known to the map, but no provider the Router routes: the first one says why
            return routed[0], ""
        if given:
            return None, f"gateway.litellm '{given}' is not in litellm's model map"
        if not providers:
            return None, f"no gateway.litellm, and host {info.host} is no provider in litellm's model map"
        if not is_id_like(info.model):
            return None, f"no gateway.litellm, and the model '{info.model}' is a display name, not an id"
        return None, f"no gateway.litellm, and no {' or '.join(tried)} in litellm's model map"

    def openrouter_id(self, offering: str) -> tuple[str | None, str]:
        if offering not in self._orid:
            self._orid[offering] = self._openrouter_id(offering)
        return self._orid[offering]

    def _openrouter_id(self, offering: str) -> tuple[str | None, str]:
        info = self.infos.get(offering)
        if info is None:
            return None, "the plan has no offering_info for it"
        given = info.gateway.get("openrouter")
        if given and given in self.src.or_models:
            return given, ""
        names: list[str] = []
        if info.host != AGGREGATOR:
            lid, _ = self.litellm_known(offering)
            if lid:
                provider = str(self.src.litellm_entry(lid).get("litellm_provider", "")).split("-", 1)[0]
                rest = lid[len(provider) + 1 :] if lid.startswith(provider + "/") else lid
                names.append(rest.removeprefix(FIREWORKS_PREFIX))
        if is_id_like(info.model):
            names.append(info.model)
        names = list(dict.fromkeys(names))
        for name in names:
            found = self.src.openrouter_model(name)
            if found:
                return found, ""
        if given:
            return None, f"gateway.openrouter '{given}' is not in OpenRouter's models listing"
        if names:
            return None, f"no gateway.openrouter, and no model {' or '.join(names)} in OpenRouter's models listing"
        return None, "no gateway.openrouter, no known litellm id, and the model is a display name"

    # ---------------------------------------------------------------- targets
    def litellm(self, offering: str, mode: str) -> Target:
        info = self.infos.get(offering)
        model, why = self.litellm_id(offering)
        t = Target(label(offering, mode), model or (info.gateway.get("litellm") if info else None) or offering)
        if model is None:
            t.problems.append(f"id: {why}")
        elif model == self.unlisted(offering):
            t.unpriced = model.split("/", 1)[0]
        intent = mode_intent(mode)
        if intent.kind == "unknown":
            t.problems.append(f"effort: {intent.why}")
        elif intent.kind == "on":
            t.problems.append(
                f"effort: mode '{mode}' turns reasoning on without naming a level, and litellm's "
                f"reasoning_effort takes levels only ({', '.join(LITELLM_EFFORTS)})"
            )
        elif intent.kind == "effort":
            why = self.src.litellm_effort(model, intent.effort) if model else None
            if t.unpriced:
                why = (
                    f"litellm's price table does not list {model}: whether it takes effort '{intent.effort}' is unknown"
                )
            if why:
                t.problems.append(f"effort: {why}")
            else:
                t.params["reasoning_effort"] = intent.effort
        return t

    def openrouter(self, offering: str, mode: str) -> Target:
        info = self.infos.get(offering)
        model, why = self.openrouter_id(offering)
        t = Target(label(offering, mode), model or (info.gateway.get("openrouter") if info else None) or offering)
        if model is None:
            t.problems.append(f"id: {why}")
        host = info.host if info else offering
        if host == AGGREGATOR:
            t.pinned = False
        else:
            endpoint = offering.split("@", 1)[1] if "@" in offering else host
            t.slug, why = self.src.openrouter_slug(endpoint, host)
            if t.slug is None:
                t.problems.append(f"provider: {why}")
        intent = mode_intent(mode)
        reasoning: dict[str, Any] | None = None
        if intent.kind == "unknown":
            t.problems.append(f"effort: {intent.why}")
        elif intent.kind == "on":
            reasoning = {"enabled": True}
        elif intent.kind == "effort":
            if intent.effort in OPENROUTER_EFFORTS:
                reasoning = {"effort": intent.effort}
            else:
                t.problems.append(
                    f"effort: mode '{mode}' is effort '{intent.effort}', which OpenRouter's reasoning.effort "
                    f"does not take ({', '.join(OPENROUTER_EFFORTS)})"
                )
        if reasoning is not None and model is not None and not self.src.openrouter_reasoning(model):
            t.problems.append(f"effort: OpenRouter's listing gives {model} no reasoning parameter")
            reasoning = None
        if reasoning is not None:
            t.params["reasoning"] = reasoning
        return t

    # ---------------------------------------------------------------- deployability
    def problems(self, gateway: str, offering: str, mode: str, price_tier: str, reserved: str | None) -> list[str]:
        """What keeps the gateway from addressing an option (offering, mode, price tier, reservation); empty
        when it can. A batch tier goes through the vendor's batch API, never a gateway's live route; a
        reservation is the vendor's own capacity, which OpenRouter does not reach (a LiteLLM deployment of
        its own points at it)."""
        out = []
        if price_tier == "batch":
            out.append("batch: jobs go through the vendor's batch API, not a gateway's live routes")
        if reserved is not None and gateway == "openrouter":
            out.append(f"reserved {reserved}: the vendor's own capacity, which OpenRouter does not route to")
        t = self.litellm(offering, mode) if gateway == "litellm" else self.openrouter(offering, mode)
        return out + t.problems
