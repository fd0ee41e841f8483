"""The hosted providers Previously knows by name: endpoint, key variables, curated models, main/worker.

This is the one place a provider's environment variables are spelled (`*_API_KEY`, `*_BASE_URL`):
the settings, the deployment's secret, `previously aws-secrets` and the set-up hints derive from
`KEY_VARIABLES` / `BASE_URL_VARIABLES` (a unit test keeps the names out of every other module).

Every preset but Anthropic speaks the OpenAI chat-completions API at its own endpoint; `flavor`
says how its reasoning controls are spelled (see `core.llm.openai_adapter.thinking_params`).
The curated lists are a starting point, not a gate: any other id the provider serves can be named.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from core.llm.model_info import ModelInfo, ProviderId

# How a provider spells its reasoning options (Anthropic has its own adapter).
Flavor = Literal["openai", "deepseek", "moonshot", "qwen", "effort", "plain", "compatible"]


@dataclass(frozen=True)
class Preset:
    """One hosted provider.

    `env_vars`: the variables that may carry its key (the first one set wins). `base_url`: None
    for the SDK's own default. `prefixes`: model ids starting with one of these belong to it.
    `signup`: where a key is created. `base_url_var`: the variable that points it at another
    (compatible) server, for the presets that have one.
    """

    id: ProviderId
    name: str
    api: Literal["anthropic", "openai"]
    env_vars: tuple[str, ...]
    base_url: str | None
    flavor: Flavor
    main: str
    worker: str
    prefixes: tuple[str, ...]
    signup: str
    base_url_var: str | None = None

    @property
    def env_var(self) -> str:
        """The variable named in instructions."""
        return self.env_vars[0]


def _m(model_id: str, name: str, provider: ProviderId, **kw: object) -> ModelInfo:
    return ModelInfo(model_id, name, provider, **kw)  # type: ignore[arg-type]


_OFF_LOW = {"thinking_off": "low"}  # the model cannot stop reasoning; "low" is the least it takes

CURATED: tuple[ModelInfo, ...] = (
    _m("deepseek-v4-pro", "DeepSeek V4 Pro", "deepseek", max_tokens=393_216),
    _m("deepseek-v4-flash", "DeepSeek V4 Flash", "deepseek", max_tokens=393_216),
    _m(
        "deepseek-v4-flash-vision-exp",
        "DeepSeek V4 Flash Vision (experimental)",
        "deepseek",
        supports_vision=True,
        max_tokens=393_216,
    ),
    _m(
        "claude-sonnet-5",
        "Claude Sonnet 5",
        "anthropic",
        supports_vision=True,
        max_tokens=200_000,
        adaptive_thinking=True,
    ),
    _m(
        "claude-opus-4-8",
        "Claude Opus 4.8",
        "anthropic",
        supports_vision=True,
        max_tokens=200_000,
        adaptive_thinking=True,
    ),
    _m("claude-haiku-4-5", "Claude Haiku 4.5", "anthropic", supports_vision=True, max_tokens=200_000),
    _m("gpt-5.5", "GPT-5.5", "openai", supports_vision=True, max_tokens=400_000),
    _m("gpt-5.4-mini", "GPT-5.4 mini", "openai", supports_vision=True, max_tokens=400_000),
    _m("kimi-k2.6", "Kimi K2.6", "moonshot", supports_vision=True, max_tokens=262_144, fixed_sampling=True),
    _m("kimi-k2.5", "Kimi K2.5", "moonshot", supports_vision=True, max_tokens=262_144, fixed_sampling=True),
    _m("qwen3-max", "Qwen3 Max", "qwen", max_tokens=262_144),
    _m("qwen-plus", "Qwen Plus", "qwen", max_tokens=131_072),
    _m("qwen-flash", "Qwen Flash", "qwen", max_tokens=131_072),
    _m("qwen3-vl-plus", "Qwen3 VL Plus", "qwen", supports_vision=True, max_tokens=262_144),
    _m("gemini-2.5-pro", "Gemini 2.5 Pro", "google", supports_vision=True, max_tokens=1_048_576, **_OFF_LOW),
    _m(
        "gemini-2.5-flash",
        "Gemini 2.5 Flash",
        "google",
        supports_vision=True,
        max_tokens=1_048_576,
        thinking_off="none",
    ),
    _m("mistral-large-latest", "Mistral Large", "mistral", supports_thinking=False, max_tokens=131_072),
    _m(
        "mistral-medium-latest",
        "Mistral Medium",
        "mistral",
        supports_thinking=False,
        supports_vision=True,
        max_tokens=131_072,
    ),
    _m(
        "mistral-small-latest",
        "Mistral Small",
        "mistral",
        supports_thinking=False,
        supports_vision=True,
        max_tokens=131_072,
    ),
    # Grok 4 always reasons and refuses a reasoning_effort; Grok 3 mini takes low or high.
    _m("grok-4", "Grok 4", "xai", supports_thinking=False, supports_vision=True, max_tokens=256_000),
    _m("grok-3-mini", "Grok 3 mini", "xai", max_tokens=131_072, efforts=("low", "high"), **_OFF_LOW),
    _m("openai/gpt-oss-120b", "GPT-OSS 120B (Groq)", "groq", max_tokens=131_072, **_OFF_LOW),
    _m("openai/gpt-oss-20b", "GPT-OSS 20B (Groq)", "groq", max_tokens=131_072, **_OFF_LOW),
    _m(
        "meta-llama/llama-4-scout-17b-16e-instruct",
        "Llama 4 Scout (Groq)",
        "groq",
        supports_thinking=False,
        supports_vision=True,
        max_tokens=131_072,
    ),
)

PRESETS: tuple[Preset, ...] = (
    Preset(
        "deepseek",
        "DeepSeek",
        "openai",
        ("DEEPSEEK_API_KEY",),
        "https://api.deepseek.com",
        "deepseek",
        "deepseek-v4-pro",
        "deepseek-v4-flash",
        ("deepseek-",),
        "https://platform.deepseek.com",
    ),
    Preset(
        "anthropic",
        "Anthropic",
        "anthropic",
        ("ANTHROPIC_API_KEY",),
        None,
        "plain",
        "claude-sonnet-5",
        "claude-haiku-4-5",
        ("claude-",),
        "https://console.anthropic.com",
        "ANTHROPIC_BASE_URL",
    ),
    Preset(
        "openai",
        "OpenAI",
        "openai",
        ("OPENAI_API_KEY",),
        None,
        "openai",
        "gpt-5.5",
        "gpt-5.4-mini",
        ("gpt-", "chatgpt-", "o1", "o3", "o4"),
        "https://platform.openai.com",
        "OPENAI_BASE_URL",
    ),
    Preset(
        "moonshot",
        "Moonshot AI",
        "openai",
        ("MOONSHOT_API_KEY",),
        "https://api.moonshot.ai/v1",
        "moonshot",
        "kimi-k2.6",
        "kimi-k2.5",
        ("kimi-", "moonshot-"),
        "https://platform.moonshot.ai",
    ),
    Preset(
        "qwen",
        "Alibaba (Qwen)",
        "openai",
        ("DASHSCOPE_API_KEY",),
        "https://dashscope-intl.aliyuncs.com/compatible-mode/v1",
        "qwen",
        "qwen-plus",
        "qwen-flash",
        ("qwen", "qwq-"),
        "https://modelstudio.console.alibabacloud.com",
    ),
    Preset(
        "google",
        "Google",
        "openai",
        ("GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENERATIVE_AI_API_KEY"),
        "https://generativelanguage.googleapis.com/v1beta/openai/",
        "effort",
        "gemini-2.5-pro",
        "gemini-2.5-flash",
        ("gemini-", "gemma-"),
        "https://aistudio.google.com/apikey",
    ),
    Preset(
        "mistral",
        "Mistral",
        "openai",
        ("MISTRAL_API_KEY",),
        "https://api.mistral.ai/v1",
        "plain",
        "mistral-large-latest",
        "mistral-small-latest",
        ("mistral-", "magistral-", "ministral-", "codestral-", "devstral-", "pixtral-"),
        "https://console.mistral.ai",
    ),
    Preset(
        "xai",
        "xAI",
        "openai",
        ("XAI_API_KEY",),
        "https://api.x.ai/v1",
        "effort",
        "grok-4",
        "grok-3-mini",
        ("grok-",),
        "https://console.x.ai",
    ),
    Preset(
        "groq",
        "Groq",
        "openai",
        ("GROQ_API_KEY",),
        "https://api.groq.com/openai/v1",
        "effort",
        "openai/gpt-oss-120b",
        "openai/gpt-oss-20b",
        (),
        "https://console.groq.com/keys",
    ),
)

PRESET_BY_ID: dict[ProviderId, Preset] = {p.id: p for p in PRESETS}
KEY_VARIABLES: tuple[str, ...] = tuple(v for p in PRESETS for v in p.env_vars)
"""Every variable that may carry a provider's key (secret values: redacted, kept in the secret)."""
BASE_URL_VARIABLES: tuple[str, ...] = tuple(p.base_url_var for p in PRESETS if p.base_url_var)
"""The variables that point a provider's API at another server (plain values, not secrets)."""
OPENAI = PRESET_BY_ID["openai"]
"""The preset a local or other OpenAI-compatible server is configured through."""
LOCAL_EXAMPLE_URL = "http://localhost:11434/v1"  # Ollama's OpenAI-compatible endpoint, for hints
HINT_KEYS: tuple[str, ...] = tuple(p.env_var for p in PRESETS)
"""The key variables set-up hints name: one per provider (Google's aliases left out)."""
