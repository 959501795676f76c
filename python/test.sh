#!/usr/bin/env bash
# The Python and Spark tests, on a fresh machine: a virtual environment of
# their own (target/python-venv), the wheel built from this checkout and
# installed as a user installs it, then pytest.
#
# Spark needs Java 17. When no `java` is found and this runs as root on a
# Debian-like system, Debian's openjdk-17-jre-headless is installed;
# otherwise the Spark tests skip and say why.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=target/python-venv
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check -r python/requirements-test.txt

if ! command -v java >/dev/null 2>&1 && [ -z "${JAVA_HOME:-}" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "python/test.sh: installing openjdk-17-jre-headless for the Spark tests" >&2
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless >/dev/null
    else
        echo "python/test.sh: no Java 17 and no way to install it: the Spark tests will skip" >&2
    fi
fi

rm -rf target/wheels
"$venv/bin/maturin" build --quiet --release --locked \
    --manifest-path python/Cargo.toml --interpreter "$venv/bin/python" --out target/wheels
"$venv/bin/pip" install --quiet --disable-pip-version-check --force-reinstall --no-deps target/wheels/toolgate-*.whl

# The CLI the tests compare against: this checkout's, up to date.
cargo build --locked --quiet --bin toolgate
export TOOLGATE_BIN="$PWD/target/debug/toolgate"

# Run from the tests' folder with the venv's pytest, so that `import
# toolgate` is the installed wheel, not the source folder.
cd python/tests
exec "../../$venv/bin/pytest" -q -p no:cacheprovider .
