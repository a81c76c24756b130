"""Names as the sources spell them, made comparable: hosts as (company, endpoint variant) and their litellm
provider, model names normalised for matching, effort qualifiers split off, ids made slugs (the rules are in
planner.market.catalog_import's docstring: Companies, Matching rule)."""

from __future__ import annotations

import re

# A host's company (lower case, "-" read as a space) -> its litellm provider. `gateway` reads it too.
HOST_ALIASES = {
    "amazon": "bedrock",
    "amazon bedrock": "bedrock",
    "google": "gemini",
    "google vertex": "vertex_ai",
    "google (vertex)": "vertex_ai",
    "google ai studio": "gemini",
    "google (ai studio)": "gemini",
    "microsoft": "azure_ai",
    "microsoft azure": "azure_ai",
    "together ai": "together_ai",
    "fireworks": "fireworks_ai",
    "moonshot": "moonshot",
    "kimi": "moonshot",
    "lightning ai": "lightning_ai",
    "alibaba": "dashscope",
    "alibaba cloud": "dashscope",
    "ai21 labs": "ai21",
    "reka ai": "reka",
    "liquid ai": "liquid_ai",
    "minimax": "minimax",
}
# Endpoint variants that are a company's own product with its own litellm provider.
VARIANT_PROVIDERS = {("google", "vertex"): "vertex_ai", ("google", "ai-studio"): "gemini"}
# A normalised host name (qualifiers removed) -> the company: product names to their company.
COMPANIES = {
    "amazon-bedrock": "amazon",
    "aws": "amazon",
    "aws-bedrock": "amazon",
    "microsoft-azure": "microsoft",
    "azure": "microsoft",
    "azure-ai": "microsoft",
    "google-cloud": "google",
    "google-gemini": "google",
    "gemini": "google",
    "vertex-ai": "google",
    "alibaba-cloud": "alibaba",
    "dashscope": "alibaba",
    "kimi": "moonshot",
    "moonshot-ai": "moonshot",
    "moonshotai": "moonshot",
    "together": "together-ai",
    "togetherai": "together-ai",
    "fireworks-ai": "fireworks",
    "gmicloud": "gmi",  # OpenRouter's names for companies Artificial Analysis names otherwise
    "gmi-cloud": "gmi",
    "friendli": "friendliai",
}
# Words that name an endpoint variant when they end a host name ("Nebius Fast", "DeepInfra FP8").
VARIANT_WORDS = (
    ("latency", "optimized"),
    ("ai", "studio"),
    ("vertex",),
    ("turbo",),
    ("fast",),
    ("base",),
    ("standard",),
    ("fp4",),
    ("fp8",),
    ("fp16",),
    ("bf16",),
    ("int4",),
    ("int8",),
    ("mxfp4",),
    ("mxfp8",),
    ("nvfp4",),
)
# Parts of a parenthesised model-name qualifier that name a reasoning effort, not another model.
EFFORT_WORDS = {
    "reasoning",
    "non-reasoning",
    "adaptive reasoning",
    "thinking",
    "non-thinking",
    "minimal",
    "low",
    "medium",
    "high",
    "xhigh",
    "max",
    "minimal effort",
    "low effort",
    "medium effort",
    "high effort",
    "xhigh effort",
    "max effort",
}
LITELLM_PROVIDER_ALIASES = {
    "bedrock_converse": "bedrock",
    "vertex_ai-llama_models": "vertex_ai",
    "vertex_ai-moonshot_models": "vertex_ai",
    "vertex_ai-language-models": "vertex_ai",
    "fireworks_ai-embedding-models": "fireworks_ai",
}
_PREFIXES = (
    "us.",
    "eu.",
    "apac.",
    "au.",
    "jp.",
    "global.",
    "us-gov.",
    "anthropic.",
    "openai.",
    "meta.",
    "moonshotai.",
    "moonshot.",
    "mistral.",
    "deepseek.",
    "qwen.",
    "google.",
)


def normalize_model(name: str) -> str:
    s = name.strip().lower()
    s = s.rsplit("/", 1)[-1]
    s = re.sub(r":free$", "", s)
    changed = True
    while changed:
        changed = False
        for p in _PREFIXES:
            if s.startswith(p):
                s, changed = s[len(p) :], True
    s = re.sub(r"\([^)]*\)", " ", s)
    s = re.sub(r"(\d)p(\d)", r"\1.\2", s)
    s = re.sub(r"[-_ ]?(20\d\d-\d\d-\d\d|20\d{6})\b", "", s)
    s = re.sub(r"[\s._:]+", "-", s)
    words = [w for w in s.split("-") if w and w not in ("instruct", "chat", "latest", "maas", "it")]
    if words and words[0] == "meta" and len(words) > 1:
        words = words[1:]
    return "-".join(words)


def dashes(text: str) -> str:
    """Lower case, every run of other characters than letters and digits one "-"."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def endpoint(host: str) -> tuple[str, str]:
    """An Artificial Analysis host name as (company, variant): "DeepInfra (Turbo, FP4)" is
    ("deepinfra", "turbo-fp4"), "Nebius Fast" ("nebius", "fast"), "Together.ai" ("together-ai", "")."""
    text = host.strip()
    inner = [dashes(q) for q in re.findall(r"\(([^)]*)\)", text)]
    words = [w for w in dashes(re.sub(r"\([^)]*\)", " ", text)).split("-") if w]
    suffix: list[str] = []
    found = True
    while found:
        found = False
        for v in VARIANT_WORDS:
            if len(words) > len(v) and tuple(words[-len(v) :]) == v:
                suffix = list(v) + suffix
                words = words[: -len(v)]
                found = True
                break
    base = "-".join(words) or dashes(text) or "unknown"
    variant = "-".join([*suffix, *(q for q in inner if q)])
    return COMPANIES.get(base, base), variant


def same_endpoint(host: str) -> tuple[str, str]:
    """endpoint(), with a product name that is the company's own API one endpoint with it: Google and Google
    AI Studio are one endpoint (one litellm provider, `gemini`: one rate limit), Google Vertex another."""
    company, variant = endpoint(host)
    if variant and VARIANT_PROVIDERS.get((company, variant)) == host_key(company):
        return company, ""
    return company, variant


def host_key(host: str) -> str | None:
    """The litellm provider an Artificial Analysis host name stands for; None for a variant endpoint
    (FP8, Turbo, Fast...) that keeps its own measured price."""
    company, variant = endpoint(host)
    if variant:
        return VARIANT_PROVIDERS.get((company, variant))
    return HOST_ALIASES.get(company.replace("-", " "), company.replace("-", "_"))


def split_effort(model: str) -> tuple[str, str | None]:
    """A model name as (base name, effort qualifier): "DeepSeek V4 Flash (Reasoning, High Effort)" is
    ("DeepSeek V4 Flash", "Reasoning, High Effort"); "GPT-4o (Nov '24)" has no effort qualifier."""
    for m in reversed(list(re.finditer(r"\(([^()]*)\)", model))):
        parts = [p.strip().lower() for p in m.group(1).split(",")]
        if parts and all(p in EFFORT_WORDS for p in parts):
            base = re.sub(r"\s+", " ", model[: m.start()] + model[m.end() :]).strip()
            return base or model, m.group(1).strip()
    return model.strip(), None


def thinks(qualifier: str | None) -> bool:
    """Whether an effort qualifier names a reasoning variant ("high" does, "Non-reasoning" does not)."""
    return qualifier is not None and not qualifier.strip().lower().startswith("non-")


def slug(text: str) -> str:
    s = re.sub(r"[^A-Za-z0-9._@/:-]+", "-", text.strip().lower())
    return re.sub(r"-{2,}", "-", s).strip("-") or "x"
