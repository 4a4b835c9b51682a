#!/bin/bash
set -e
TEST_PATCH="$1"
FEATURE_PATCH="$2"
cd /workspace/repo
git reset --hard HEAD
git clean -fdx
git apply --ignore-whitespace --ignore-space-change "/patches/$TEST_PATCH" || git apply --3way "/patches/$TEST_PATCH"
if [[ -n "$FEATURE_PATCH" ]]; then
    git apply --ignore-whitespace --ignore-space-change "/patches/$FEATURE_PATCH" || git apply --3way "/patches/$FEATURE_PATCH"
fi

echo "Installing package..."
pip install -e .

# Run the tests
echo "Running tests..."
timeout 300 python -m pytest "tests/" -v --tb=short

echo "Test execution completed!"
