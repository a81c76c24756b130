"""Download the public sources a catalog is built from: OpenRouter's models, providers and per-model
endpoints, litellm's price table and the Artificial Analysis API (SPEC, "Live catalogs").

Each response is saved as it came (bytes), beside a PROVENANCE.json and a PROVENANCE.md that list per
file its URL, when it was fetched (UTC), its sha256 and its size, so that a catalog can always be traced
to what was downloaded and rebuilt from it. The files are written into a hidden folder beside the
output folder and moved into place only when every download succeeded: a fetch that fails leaves the
output folder as it was.

The network fails in ordinary ways, so every request has a connect and a read timeout and is retried a
bounded number of times, with exponential backoff, on a timeout, a broken connection, 429 (after what
Retry-After asks, capped) and 5xx. What still fails is one line (the URL, what happened, what to do)
and exit code 4 (errors.NetworkError). A body that is not the JSON the API documents is refused the same
way: a truncated download must not become a catalog.
"""

from __future__ import annotations

import email.utils
import hashlib
import json
import os
import re
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

from planner.core.errors import InputError, NetworkError, Setting
from planner.core.files import Outputs, file_stem, max_input_bytes, umask
from planner.core.fmt import visible
from planner.core.version import __version__
from planner.market.provenance import KINDS, PROVENANCE_JSON

DEFAULT_URLS = {
    "openrouter": "https://openrouter.ai",
    "litellm": "https://raw.githubusercontent.com/BerriAI/litellm/main/model_prices_and_context_window.json",
    "aa": "https://artificialanalysis.ai",
}
URL_ENV = {"openrouter": "PLANNER_OPENROUTER_URL", "litellm": "PLANNER_LITELLM_URL", "aa": "PLANNER_AA_URL"}
URL_OPTION = {k: Setting(f"{k}_url") for k in ("openrouter", "litellm", "aa")}  # --openrouter-url ...
AA_KEY_ENV = "ARTIFICIAL_ANALYSIS_API_KEY"
OPENROUTER_KEY_ENV = "OPENROUTER_API_KEY"
AA_KEY_HELP = "create a key at https://artificialanalysis.ai (Insights Platform, API keys)"
PROVENANCE_MD = "PROVENANCE.md"

# Paths under the base URLs, as the APIs document them.
OPENROUTER_MODELS = "/api/v1/models"
OPENROUTER_PROVIDERS = "/api/v1/providers"
OPENROUTER_ENDPOINTS = "/api/v1/models/{author}/{slug}/endpoints"
AA_MODELS = "/api/v2/data/llms/models"

# Defaults, each overridable by an option and an environment variable (tests keep them short).
TIMEOUT_S = 60.0  # PLANNER_FETCH_TIMEOUT_S: the longest wait for the next bytes of an answer
CONNECT_TIMEOUT_S = 10.0  # PLANNER_FETCH_CONNECT_TIMEOUT_S
RETRIES = 4  # PLANNER_FETCH_RETRIES: attempts after the first
BACKOFF_S = 1.0  # PLANNER_FETCH_BACKOFF_S: the first wait; each retry waits twice the last
BACKOFF_MAX_S = 30.0  # no backoff wait is longer
RETRY_AFTER_MAX_S = 60.0  # PLANNER_FETCH_RETRY_AFTER_MAX_S: a longer Retry-After is cut to this
CONCURRENCY = 4  # PLANNER_FETCH_CONCURRENCY: OpenRouter endpoints lists requested at once
DEADLINE_S = 300.0  # PLANNER_FETCH_DEADLINE_S: the longest one attempt at a request may take, start to last byte
RETRY_STATUS = {408, 429, 500, 502, 503, 504}
MAX_REDIRECTS = 5  # redirects followed for one request; more is a failure (a loop)
REDIRECT_STATUS = {301, 302, 303, 307, 308}
SECRET_HEADERS = ("authorization", "x-api-key")  # sent only to the scheme, host and port configured
NAME_PART = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:~+-]{0,99}")  # one part of an OpenRouter model id saved as a file


@dataclass(frozen=True)
class Settings:
    urls: dict[str, str]
    timeout_s: float = TIMEOUT_S
    connect_timeout_s: float = CONNECT_TIMEOUT_S
    retries: int = RETRIES
    backoff_s: float = BACKOFF_S
    retry_after_max_s: float = RETRY_AFTER_MAX_S
    concurrency: int = CONCURRENCY
    deadline_s: float = DEADLINE_S


def _number(
    option: str | None, given: float | None, env: str, default: float, low: float, high: float, *, whole: bool = False
):
    """A setting: the option's value, else the environment variable's, else the default; a value that
    is not a (whole) number from low to high (NaN and infinities included) is an input error naming
    where it came from."""
    if given is not None:
        where, raw = option or env, str(given)
    else:
        where, raw = env, os.environ.get(env, "").strip()
        if not raw:
            return default
    try:
        value = int(raw) if whole else float(raw)
    except ValueError:
        raise InputError.single(
            where, "", f"expected a {'whole ' if whole else ''}number, found {raw[:40]!r}"
        ) from None
    if not low <= value <= high:  # (False for NaN)
        raise InputError.single(where, "", f"expected a number from {low:g} to {high:g}, found {raw[:40]!r}")
    return value


def _url(kind: str, given: str | None) -> str:
    """The source's base URL (litellm's: the file's URL): the option, else the environment, else the
    public one. Only http and https."""
    url = (given or os.environ.get(URL_ENV[kind], "") or DEFAULT_URLS[kind]).strip()
    where = URL_OPTION[kind] if given else URL_ENV[kind] if os.environ.get(URL_ENV[kind], "").strip() else "default"
    if not url.startswith(("http://", "https://")) or len(url) < 10:
        raise InputError.single(where, "", f"expected an http:// or https:// URL, found {url[:60]!r}")
    return url.rstrip("/") if kind != "litellm" else url


def settings(
    urls: dict[str, str | None],
    timeout_s: float | None = None,
    connect_timeout_s: float | None = None,
    retries: int | None = None,
    concurrency: int | None = None,
    sources: list[str] | tuple[str, ...] = KINDS,
    deadline_s: float | None = None,
) -> Settings:
    """Options over environment variables over defaults, for the sources to fetch; a bad value is an
    input error naming it."""
    return Settings(
        {k: _url(k, urls.get(k)) for k in KINDS if k in sources},
        _number(Setting("timeout"), timeout_s, "PLANNER_FETCH_TIMEOUT_S", TIMEOUT_S, 0.001, 3600),
        _number(
            Setting("connect_timeout"),
            connect_timeout_s,
            "PLANNER_FETCH_CONNECT_TIMEOUT_S",
            CONNECT_TIMEOUT_S,
            0.001,
            600,
        ),
        int(_number(Setting("retries"), retries, "PLANNER_FETCH_RETRIES", RETRIES, 0, 20, whole=True)),
        _number(None, None, "PLANNER_FETCH_BACKOFF_S", BACKOFF_S, 0, 60),
        _number(None, None, "PLANNER_FETCH_RETRY_AFTER_MAX_S", RETRY_AFTER_MAX_S, 0, 3600),
        int(_number(Setting("concurrency"), concurrency, "PLANNER_FETCH_CONCURRENCY", CONCURRENCY, 1, 32, whole=True)),
        _number(Setting("deadline"), deadline_s, "PLANNER_FETCH_DEADLINE_S", DEADLINE_S, 0.001, 86400),
    )


@dataclass
class Saved:
    """One response as saved: where under the output folder, what it is and where it came from."""

    path: str  # relative to the output folder, "/"-separated
    kind: str
    url: str  # the URL asked for
    fetched_at: str  # UTC, ISO 8601 to the second
    body: bytes = field(repr=False)
    served_by: str = ""  # the URL the bytes came from, after redirects ("" : the URL asked for)

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.body).hexdigest()

    def record(self) -> dict:
        return {
            "path": self.path,
            "kind": self.kind,
            "url": self.url,
            "served_by": self.served_by or self.url,
            "fetched_at": self.fetched_at,
            "sha256": self.sha256,
            "bytes": len(self.body),
        }


@dataclass
class FetchResult:
    files: list[Saved]
    notes: list[str]  # what the user should know (a missing optional key), one line each
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (listed id, why) of entries not fetched


class _Cancelled(Exception):
    """The run stopped (another download failed, or Ctrl-C): a worker gives up quietly."""


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class _Client:
    """GET with timeouts, retries and backoff; the body read up to the input-file limit and parsed."""

    def __init__(self, cfg: Settings, stop: threading.Event) -> None:
        import httpx

        self.httpx = httpx
        self.cfg, self.stop = cfg, stop
        self.limit = max_input_bytes()
        timeout = httpx.Timeout(cfg.timeout_s, connect=cfg.connect_timeout_s)
        self.client = httpx.Client(
            timeout=timeout,
            follow_redirects=False,  # followed by hand: _attempt
            headers={"User-Agent": f"planner/{__version__} (catalog fetch)", "Accept": "application/json"},
        )

    def close(self) -> None:
        self.client.close()

    def _wait(self, seconds: float) -> None:
        if self.stop.wait(max(0.0, seconds)):
            raise _Cancelled

    def _backoff(self, attempt: int) -> float:
        return min(self.cfg.backoff_s * 2 ** (attempt - 1), BACKOFF_MAX_S)

    def _retry_after(self, response) -> float | None:
        raw = response.headers.get("Retry-After", "").strip()
        if not raw:
            return None
        try:
            seconds = float(raw)
        except ValueError:
            try:
                when = email.utils.parsedate_to_datetime(raw)
            except (TypeError, ValueError):
                return None
            seconds = (when - datetime.now(UTC)).total_seconds()
        return min(max(seconds, 0.0), self.cfg.retry_after_max_s)

    def get(self, url: str, kind: str, headers: dict[str, str] | None = None) -> tuple[bytes, str, object, str]:
        """The body (bytes), when it arrived (UTC), the parsed JSON and the URL it came from (after
        redirects); NetworkError after the retries."""
        httpx = self.httpx
        source = kind.split("-")[0]
        attempts = 1 + self.cfg.retries
        last = ""
        for attempt in range(1, attempts + 1):
            if self.stop.is_set():
                raise _Cancelled
            wait_s = self._backoff(attempt)
            try:
                response, served_by, body = self._attempt(url, headers or {})
                status = response.status_code
                if 200 <= status < 300:
                    return body, _now(), _parse(body, url, kind), served_by
                last = f"HTTP {status} {response.reason_phrase}".strip()
                if served_by != url:
                    last += f" from {served_by[:120]} (redirected there)"
                if status not in RETRY_STATUS:
                    raise NetworkError(url, last, _todo_status(status, source, moved=served_by != url))
                asked = self._retry_after(response)
                if asked is not None:
                    wait_s = asked
                    last += f" (Retry-After {response.headers.get('Retry-After', '').strip()[:40]})"
            except httpx.TimeoutException as exc:
                phase = "connecting" if isinstance(exc, httpx.ConnectTimeout) else "waiting for the answer"
                limit = self.cfg.connect_timeout_s if isinstance(exc, httpx.ConnectTimeout) else self.cfg.timeout_s
                last = f"timed out {phase} (after {limit:g} s)"
            except httpx.ConnectError as exc:
                last = f"could not connect ({_reason(exc)})"
            except httpx.TransportError as exc:
                last = f"the connection broke ({_reason(exc)})"
            except httpx.InvalidURL as exc:  # (a Location httpx joins but cannot request)
                raise NetworkError(url, f"redirected to an invalid address ({_reason(exc)})", "check the URL") from None
            except httpx.RequestError as exc:  # a body that cannot be decoded (a corrupt gzip answer), ...
                last = f"the answer could not be read ({type(exc).__name__}: {_reason(exc)})"
            except _TooSlow:
                last = f"the answer took longer than the {self.cfg.deadline_s:g} s deadline"
            if attempt < attempts:
                self._wait(wait_s)
        tries = f"after {attempts} attempt{'s' if attempts > 1 else ''}"
        raise NetworkError(url, f"{last} {tries}", _todo_after(last, source))

    def _attempt(self, url: str, headers: dict[str, str]):
        """One attempt: GET, following at most MAX_REDIRECTS redirects by hand, so that a secret header
        (an API key) never goes to another scheme, host or port than the URL configured; the body of a
        2xx answer read within the deadline. Returns the last response, its URL and the body."""
        started = time.monotonic()
        origin = _origin(self.httpx.URL(url))
        current, sent = url, dict(headers)
        for _ in range(MAX_REDIRECTS + 1):
            with self.client.stream("GET", current, headers=sent) as response:
                location = response.headers.get("Location", "").strip()
                if response.status_code not in REDIRECT_STATUS or not location:
                    ok = 200 <= response.status_code < 300
                    return response, current, self._read(response, url, started) if ok else b""
                try:
                    target = response.url.join(location)
                except self.httpx.InvalidURL:
                    raise NetworkError(
                        url, f"redirected to an invalid address {location[:80]!r}", "check the URL"
                    ) from None
            if target.scheme not in ("http", "https"):
                raise NetworkError(url, f"redirected to a {target.scheme!r} address, not http(s)", "check the URL")
            if not target.host:
                bad = f"redirected to an invalid address {location[:80]!r} (no host)"
                raise NetworkError(url, bad, "check the URL")
            if _origin(target) != origin:  # the key stays with the host it was configured for
                sent = {k: v for k, v in sent.items() if k.lower() not in SECRET_HEADERS}
            current = str(target)
            if time.monotonic() - started > self.cfg.deadline_s:
                raise _TooSlow
        raise NetworkError(
            url,
            f"more than {MAX_REDIRECTS} redirects (last to {current[:120]}): a redirect loop",
            "check the URL, or point it at the final address",
        )

    def _read(self, response, url: str, started: float) -> bytes:
        chunks, size = [], 0
        for chunk in response.iter_bytes():
            size += len(chunk)
            if size > self.limit:
                raise NetworkError(
                    url,
                    f"the answer is larger than the {self.limit / 2**20:g} MB limit for input files",
                    "set PLANNER_MAX_FILE_MB to raise it",
                )
            chunks.append(chunk)
            if self.stop.is_set():
                raise _Cancelled
            if time.monotonic() - started > self.cfg.deadline_s:
                raise _TooSlow
        return b"".join(chunks)


class _TooSlow(Exception):
    """An attempt went on past the deadline (a server that drips its answer)."""


def _origin(url) -> tuple[str, str, int | None]:
    """Scheme, host and port (the default port spelled out): what a credential is configured for."""
    port = url.port or {"http": 80, "https": 443}.get(url.scheme)
    return url.scheme, url.host, port


def _reason(exc: Exception) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0][:120]


def _where_to_set(kind: str) -> str:
    return f"{URL_OPTION[kind].shown(as_flag=True)} or {URL_ENV[kind]}"


def _todo_status(status: int, kind: str, *, moved: bool = False) -> str:
    if status in (401, 403) and moved:
        return "the server redirected the request to another address, where the key is not sent: use the final URL"
    if status in (401, 403):
        if kind == "aa":
            return f"the key was refused: check {AA_KEY_ENV} ({AA_KEY_HELP})"
        if kind == "openrouter":
            return f"access was refused: check {OPENROUTER_KEY_ENV}, or unset it to fetch anonymously"
        return "access was refused: check the URL"
    if status == 404:
        return f"no such address: check the URL ({_where_to_set(kind)})"
    return f"the server refused the request: check the URL ({_where_to_set(kind)})"


def _todo_after(last: str, kind: str) -> str:
    if last.startswith("could not connect"):
        return f"check the network connection and the URL ({_where_to_set(kind)}), then fetch again"
    if last.startswith("timed out"):
        return "try again later, or give the server longer with --timeout (PLANNER_FETCH_TIMEOUT_S)"
    if "deadline" in last:
        return "try again later, or allow longer with --deadline (PLANNER_FETCH_DEADLINE_S)"
    if "HTTP 429" in last:
        extra = " (the free Artificial Analysis API allows 1,000 requests a day)" if kind == "aa" else ""
        return f"rate limited{extra}: try again later"
    if last.startswith("HTTP 5"):
        return f"the server is failing: try again later, or use a mirror ({_where_to_set(kind)})"
    return "try again later"


WHAT = {
    "openrouter-models": ('an OpenRouter models listing {"data": [...]}', lambda d: _list_in(d)),
    "openrouter-providers": ('an OpenRouter providers listing {"data": [...]}', lambda d: _list_in(d)),
    "openrouter-endpoints": (
        'an OpenRouter endpoints list {"data": {"id": ..., "endpoints": [...]}}',
        lambda d: (
            isinstance(d, dict)
            and isinstance(d.get("data"), dict)
            and isinstance(d["data"].get("endpoints"), list)
            and isinstance(d["data"].get("id"), str)
        ),
    ),
    "litellm": ("litellm's price table (a JSON object of model entries)", lambda d: isinstance(d, dict)),
    "aa": ('an Artificial Analysis models response {"data": [...]}', lambda d: _list_in(d)),
}


def _list_in(data) -> bool:
    return isinstance(data, dict) and isinstance(data.get("data"), list)


def _parse(body: bytes, url: str, kind: str):
    """The body as JSON of the documented shape; a NetworkError otherwise (a truncated download, an error
    page served with 200, a URL that points at something else)."""
    try:
        data = json.loads(body.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise NetworkError(url, f"the answer is not UTF-8 text (byte {exc.start})", "check the URL") from None
    except json.JSONDecodeError as exc:
        raise NetworkError(
            url,
            f"the answer is not valid JSON ({exc.msg} at character {exc.pos} of {len(body)} bytes): "
            "a truncated download, or not JSON",
            "fetch again; if it persists, check the URL",
        ) from None
    except RecursionError:
        raise NetworkError(url, "the answer is not valid JSON: nested too deeply", "check the URL") from None
    what, ok = WHAT[kind]
    if not ok(data):
        source = kind.split("-")[0]
        raise NetworkError(url, f"the answer is not {what}", f"check the URL ({_where_to_set(source)})")
    return data


def check_out(out: Path) -> None:
    """Before any download: the output folder is new, empty, or a former fetch's (which is replaced), and
    not the current folder or one above it (which cannot be replaced whole)."""
    if Path(out).name in ("", ".", ".."):
        raise InputError.single(
            str(out), Setting("out"), "names the current folder or one above it; choose a new folder"
        )
    if out.exists() and not out.is_dir():
        raise InputError.single(str(out), Setting("out"), "exists and is not a folder")
    if out.is_dir() and any(out.iterdir()) and not (out / PROVENANCE_JSON).is_file():
        raise InputError.single(
            str(out),
            Setting("out"),
            f"holds files but no {PROVENANCE_JSON}: not a former fetch, so not replaced; choose a new or empty folder",
        )


def _checked_key(name: str) -> str:
    """An API key from the environment: printable ASCII (an HTTP header cannot carry anything else)."""
    key = os.environ.get(name, "").strip()
    if key and not (key.isascii() and key.isprintable()):
        raise InputError.single(name, "", "expected printable ASCII characters (an API key); found others")
    return key


def aa_key() -> str:
    key = _checked_key(AA_KEY_ENV)
    if not key:
        raise InputError.single(
            AA_KEY_ENV,
            "",
            f"not set: the Artificial Analysis API needs a key; {AA_KEY_HELP}, then set {AA_KEY_ENV}",
        )
    return key


def fetch_sources(
    sources: list[str],
    out: Path,
    cfg: Settings,
    grow: Callable[[int], None] | None = None,
    step: Callable[[], None] | None = None,
) -> FetchResult:
    """Download every source into `out` (SPEC, "Live catalogs"): all of it, or nothing. `grow(n)` tells a
    progress display of n more requests, `step()` of one done."""
    grow = grow or (lambda n: None)
    step = step or (lambda: None)
    out = Path(out)
    check_out(out)
    key = aa_key() if "aa" in sources else ""  # before any request: a run that cannot finish starts none
    notes = []
    or_key = _checked_key(OPENROUTER_KEY_ENV)
    if "openrouter" in sources and not or_key:
        notes.append(
            f"note: {OPENROUTER_KEY_ENV} is not set: OpenRouter leaves latency and throughput out of anonymous "
            "answers, so catalog import leaves those endpoints out"
        )
    stop = threading.Event()
    client = _Client(cfg, stop)
    saved: list[Saved] = []
    skipped: list[tuple[str, str]] = []
    try:
        for source in dict.fromkeys(sources):
            if source == "litellm":
                grow(1)
                path = "litellm/model_prices_and_context_window.json"
                saved.append(_one(client, cfg.urls["litellm"], "litellm", path))
                step()
            elif source == "aa":
                grow(1)
                url = cfg.urls["aa"] + AA_MODELS
                saved.append(_one(client, url, "aa", "aa/llms_models.json", {"x-api-key": key}))
                step()
            elif source == "openrouter":
                auth = {"Authorization": f"Bearer {or_key}"} if or_key else {}
                files, skipped = _openrouter(client, cfg, auth, grow, step)
                saved += files
    except BaseException:
        stop.set()
        raise
    finally:
        client.close()
    for mid, why in skipped:
        notes.append(f"skipped: OpenRouter model {mid!r}: {why}")
    _install(out, saved, skipped)
    return FetchResult(saved, notes, skipped)


def _one(client: _Client, url: str, kind: str, path: str, headers: dict | None = None) -> Saved:
    shape = kind if kind != "openrouter" else "openrouter-models"
    body, when, _, served_by = client.get(url, shape, headers)
    return Saved(path, kind.split("-")[0], url, when, body, served_by)


def endpoint_path(model_id: object) -> tuple[str | None, str]:
    """Where an OpenRouter model's endpoints list is saved ("author/slug" -> its file under the output
    folder), or None and why when the listed id cannot name a file safely (a server's data, not the
    user's: such an entry is skipped and listed, never a failure of --out)."""
    if not isinstance(model_id, str):
        return None, f"the id is not text ({type(model_id).__name__})"
    parts = model_id.split("/")
    if len(parts) != 2 or not all(NAME_PART.fullmatch(p) for p in parts):
        return None, (
            "the id is not author/slug of letters, digits and . _ : ~ + - (at most 100 each, not starting with a dot)"
        )
    return f"openrouter/endpoints/{file_stem(parts[0])}/{file_stem(parts[1])}.json", ""


def _openrouter(client: _Client, cfg: Settings, headers: dict, grow, step) -> tuple[list[Saved], list]:
    """The models listing, the providers listing and every listed model's endpoints (a few at once);
    and the listed ids skipped, with why."""
    base = cfg.urls["openrouter"]
    grow(2)
    body, when, models, served_by = client.get(base + OPENROUTER_MODELS, "openrouter-models", headers)
    saved = [Saved("openrouter/models.json", "openrouter", base + OPENROUTER_MODELS, when, body, served_by)]
    step()
    body, when, _, served_by = client.get(base + OPENROUTER_PROVIDERS, "openrouter-providers", headers)
    saved.append(Saved("openrouter/providers.json", "openrouter", base + OPENROUTER_PROVIDERS, when, body, served_by))
    step()
    jobs: dict[str, str] = {}  # file -> URL, one per listed model id "author/slug"
    skipped: list[tuple[str, str]] = []
    for m in models["data"]:
        mid = m.get("id") if isinstance(m, dict) else None
        path, why = endpoint_path(mid)
        if path is None:
            skipped.append((str(mid)[:200], why))
            continue
        author, slug = mid.split("/")
        n, stem = 2, path[: -len(".json")]
        while path in jobs:  # two ids that make one file name ("a:b" and "a_b")
            path = f"{stem}-{n}.json"
            n += 1
        jobs[path] = base + OPENROUTER_ENDPOINTS.format(author=quote(author, safe=""), slug=quote(slug, safe=":"))
    grow(len(jobs))
    results: dict[str, Saved] = {}
    with ThreadPoolExecutor(max_workers=cfg.concurrency, thread_name_prefix="fetch") as pool:
        futures = {pool.submit(client.get, url, "openrouter-endpoints", headers): path for path, url in jobs.items()}
        pending = set(futures)
        try:
            while pending:
                done, pending = wait(pending, timeout=0.2, return_when=FIRST_EXCEPTION)
                for f in done:
                    body, when, _, served_by = f.result()  # a failure stops the run: the others are cancelled
                    path = futures[f]
                    results[path] = Saved(path, "openrouter", jobs[path], when, body, served_by)
                    step()
        except BaseException:
            client.stop.set()
            for f in pending:
                f.cancel()
            raise
    return saved + [results[p] for p in jobs], skipped  # the listing's order, whatever order they arrived in


def provenance_md(saved: list[Saved], skipped: list[tuple[str, str]] = ()) -> str:
    lines = [
        "# Provenance",
        "",
        f"Written by `planner catalog fetch` (planner {__version__}). Each file is the response as it came,",
        "byte for byte; `planner catalog import` checks each against its size and sha256 (also in",
        f"{PROVENANCE_JSON}).",
        "",
        "| file | source | URL | fetched (UTC) | sha256 | bytes |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for s in saved:
        url = _md(s.url) + (f" (served by {_md(s.served_by)})" if s.served_by and s.served_by != s.url else "")
        lines.append(f"| `{s.path}` | {s.kind} | {url} | {s.fetched_at} | `{s.sha256}` | {len(s.body)} |")
    if skipped:
        lines += ["", "Listed but not fetched (an id that cannot name a file safely):", ""]
        lines += [f"- `{_md(mid)}`: {why}" for mid, why in skipped]
    return "\n".join(lines) + "\n"


def _md(text: str) -> str:
    """Text from a server in a Markdown table cell: one line, no cell break, no code-span break."""
    return visible(text, 300).replace("|", "\\|").replace("`", "'")


def provenance_json(saved: list[Saved], skipped: list[tuple[str, str]] = ()) -> str:
    record = {"fetched_by": f"planner {__version__}", "files": [s.record() for s in saved]}
    if skipped:
        record["skipped"] = [{"id": mid, "why": why} for mid, why in skipped]
    return json.dumps(record, indent=1) + "\n"


def _install(out: Path, saved: list[Saved], skipped: list[tuple[str, str]] = ()) -> None:
    """Write every file into a hidden folder beside `out`, then put it in `out`'s place (files.Outputs):
    the former folder (a former fetch) or the whole new one."""
    with Outputs() as outputs:
        parent = outputs.folder(out.parent if str(out.parent) else Path("."))
        try:
            stage = Path(tempfile.mkdtemp(prefix=f".{out.name[:40]}.fetch-", dir=parent))
            outputs.adopt(out, stage)
            for s in saved:
                target = stage / s.path
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(s.body)
            (stage / PROVENANCE_JSON).write_text(provenance_json(saved, skipped), encoding="utf-8")
            (stage / PROVENANCE_MD).write_text(provenance_md(saved, skipped), encoding="utf-8")
            os.chmod(stage, 0o777 & ~umask())
        except OSError as exc:
            raise InputError.single(str(out), Setting("out"), f"cannot be written: {exc.strerror or exc}") from None
        outputs.commit()


def summary(out: Path, result: FetchResult, seconds: float) -> str:
    total = sum(len(s.body) for s in result.files)
    kinds = ", ".join(
        f"{k} ({n} file{'s' if n > 1 else ''})" for k in KINDS if (n := sum(1 for s in result.files if s.kind == k))
    )
    size = f"{total / 2**20:.1f} MB" if total >= 2**20 else f"{total / 2**10:.0f} KB"
    return f"{out}: {len(result.files)} files, {size} in {seconds:.1f} s: {kinds}; provenance in {out / PROVENANCE_MD}"
