#!/usr/bin/env bash
# Builds toolscope and starts the browser playground. toolscope chooses
# the backend itself (--backend auto): a real model through Ollama when
# Ollama answers and has the model pulled, else the offline demo model
# (the page says which, and why).
#
# Settings come from toolscope's own flags and TOOLSCOPE_* environment
# variables (see 'bin/toolscope serve -h'), for example:
#
#   TOOLSCOPE_ADDR   where to serve        (default 127.0.0.1:8000)
#   TOOLSCOPE_MODEL  the Ollama model      (default qwen3:4b)
#   OLLAMA_HOST      where Ollama listens  (default 127.0.0.1:11434)
#
# Further arguments go to 'toolscope serve', e.g. ./start.sh --tool-delay 1s
#
# An OpenAI-compatible server (vLLM, llama-server, LM Studio) is used only
# when asked for: auto never picks it, since OPENAI_BASE_URL is often set
# for other tools. toolscope reads OPENAI_BASE_URL and OPENAI_API_KEY
# itself, so with them set this is enough:
#
#   OPENAI_BASE_URL=http://127.0.0.1:8000/v1 ./start.sh --backend openai
#
# (Serving toolscope on 8000 as vLLM does? Add --addr 127.0.0.1:8080.)
set -euo pipefail
cd "$(dirname "$0")"

if ! command -v go >/dev/null; then
	echo "start.sh builds toolscope with Go 1.26 or newer: get it from https://go.dev/dl/" >&2
	exit 1
fi
mkdir -p bin
go build -o bin/toolscope ./cmd/toolscope
exec bin/toolscope serve "$@"
