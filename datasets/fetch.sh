#!/usr/bin/env bash
# Downloads a public dataset the benchmarks can use into the data folder. Never run by the
# build: only by a user with internet (the tests give it a local file).
#
#   datasets/fetch.sh [--data-dir DIR] [--from FILE] [--accept-checksum] roadNet-PA
#
# roadNet-PA: SNAP's road network of Pennsylvania (Leskovec et al.), the BFS input of
# Springer et al. 2018, from https://snap.stanford.edu/data/roadNet-PA.txt.gz, unpacked to
# DIR/roadNet-PA.txt. The data folder is DIR, else $LB_DATA_DIR, else data/ in the
# repository (ignored by git), where the `inner` suite looks for it.
#
# The download is checked against the size and sha256 a mirror recorded for the .gz (not
# verified against SNAP itself): on a mismatch the script says so, removes the download and
# fails, unless --accept-checksum is given. The file appears whole or not at all (temporary
# files in DIR, renamed into place).
#
# --from FILE       use a local copy of the .gz instead of downloading (no network)
# --accept-checksum keep a download whose size or sha256 differs from the record
# LB_FETCH_URL      overrides the download address (e.g. file:///path for tests)
set -euo pipefail

usage() { echo "usage: $0 [--data-dir DIR] [--from FILE] [--accept-checksum] roadNet-PA" >&2; exit 2; }

data_dir="${LB_DATA_DIR:-$(cd "$(dirname "$0")/.." && pwd)/data}"
from=""
accept=0
name=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --data-dir) [[ $# -ge 2 ]] || usage; data_dir="$2"; shift 2 ;;
    --from) [[ $# -ge 2 ]] || usage; from="$2"; shift 2 ;;
    --accept-checksum) accept=1; shift ;;
    -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "fetch.sh: unknown option $1" >&2; usage ;;
    *) [[ -z "$name" ]] || usage; name="$1"; shift ;;
  esac
done

case "$name" in
  roadNet-PA)
    url="${LB_FETCH_URL:-https://snap.stanford.edu/data/roadNet-PA.txt.gz}"
    # Overridable only so the tests can exercise the matching path with a small file.
    want_sha256="${LB_FETCH_SHA256:-450b8733635d887466a2b96b26411f6e62caf7006f8a264f59cf9b5d75cdf549}"
    want_size="${LB_FETCH_SIZE:-9945340}"
    target="roadNet-PA.txt" ;;
  "") usage ;;
  *) echo "fetch.sh: unknown dataset '$name' (known: roadNet-PA)" >&2; exit 2 ;;
esac

if [[ -e "$data_dir" && ! -d "$data_dir" ]]; then
  echo "fetch.sh: the data folder $data_dir is not a directory" >&2
  exit 2
fi
mkdir -p "$data_dir"
if [[ -e "$data_dir/$target" && ! -f "$data_dir/$target" ]]; then
  echo "fetch.sh: $data_dir/$target exists and is not a regular file (a directory?): remove or rename it" >&2
  exit 2
fi
if [[ -f "$data_dir/$target" ]]; then
  echo "$data_dir/$target is already there (remove it to fetch again)"
  exit 0
fi

gz="$(mktemp "$data_dir/.$target.gz.XXXXXX")"
txt="$(mktemp "$data_dir/.$target.XXXXXX")"
trap 'rm -f "$gz" "$txt"' EXIT

if [[ -n "$from" ]]; then
  [[ -f "$from" ]] || { echo "fetch.sh: --from: no such file: $from" >&2; exit 2; }
  cp "$from" "$gz"
  origin="$from"
else
  echo "downloading $url"
  if command -v curl >/dev/null; then
    curl --fail --location --silent --show-error --output "$gz" "$url"
  else
    wget --quiet --output-document="$gz" "$url"
  fi
  origin="$url"
fi

size="$(stat -c %s "$gz")"
sha256="$(sha256sum "$gz" | cut -d' ' -f1)"
if [[ "$size" != "$want_size" || "$sha256" != "$want_sha256" ]]; then
  echo "fetch.sh: $origin does not match the recorded download:" >&2
  echo "  size   $size bytes (recorded $want_size)" >&2
  echo "  sha256 $sha256" >&2
  echo "         (recorded $want_sha256)" >&2
  if [[ "$accept" -ne 1 ]]; then
    echo "refused; rerun with --accept-checksum to keep it anyway (the record comes from a mirror and is unverified)" >&2
    exit 1
  fi
  echo "kept anyway (--accept-checksum)" >&2
else
  echo "size and sha256 match the record"
fi

gunzip --stdout "$gz" > "$txt" || { echo "fetch.sh: $origin is not a valid gzip file" >&2; exit 1; }
chmod 644 "$txt"
# -T: never into a directory that appeared meanwhile (mv would move the file inside it).
mv -T "$txt" "$data_dir/$target"
echo "wrote $data_dir/$target"
