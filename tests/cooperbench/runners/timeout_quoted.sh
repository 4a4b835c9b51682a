#!/bin/bash

set -e

cleanup() {
    if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
        git reset --hard HEAD 2>/dev/null || true
        git clean -fdx 2>/dev/null || true
    fi
}

trap cleanup EXIT INT TERM

TEST_PATCH="$1"
FEATURE_PATCH="$2"

if [[ -z "$TEST_PATCH" ]]; then
    echo "Usage: docker run -v \$(pwd):/patches <image> <test_patch> [feature_patch]"
    exit 1
fi

cd /workspace/repo
git reset --hard HEAD
git clean -fdx

if [[ -n "$FEATURE_PATCH" ]]; then
    git apply --ignore-whitespace --ignore-space-change "/patches/$FEATURE_PATCH" || git apply --3way "/patches/$FEATURE_PATCH"
fi
git apply --ignore-whitespace --ignore-space-change "/patches/$TEST_PATCH" || git apply --3way "/patches/$TEST_PATCH"

pip install --upgrade pip
pip install -e ".[dev]"

echo "Running tests..."
timeout 300 python -m pytest "tests/adapters/test_tool.py" "tests/adapters/test_chat_adapter.py" -v --tb=short --maxfail=1

if [[ -n "$FEATURE_PATCH" ]]; then
    echo "Checking for additional feature tests..."
fi

echo "Test execution completed!"
