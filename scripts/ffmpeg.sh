#!/usr/bin/env bash
# Makes sure ffmpeg and ffprobe are there for the studio's renderer
# (internal/media pipes rendered frames into ffmpeg; its tests decode what
# was written with ffprobe): Debian's `ffmpeg` package, which ships both,
# installed with apt-get when missing (as root, like scripts/chromium.sh).
# FFMPEG and FFPROBE name other binaries to use instead (the renderer reads
# the same variables).
#
#   scripts/ffmpeg.sh          install when missing, print ffmpeg's path
set -euo pipefail

log() { echo "ffmpeg: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

ffmpeg_bin="${FFMPEG:-ffmpeg}"
ffprobe_bin="${FFPROBE:-ffprobe}"

present() { command -v "$ffmpeg_bin" >/dev/null 2>&1 && command -v "$ffprobe_bin" >/dev/null 2>&1; }

if ! present; then
	[[ -z "${FFMPEG:-}${FFPROBE:-}" ]] || die "FFMPEG=${FFMPEG:-} / FFPROBE=${FFPROBE:-} is not an executable"
	log "installing ffmpeg from Debian"
	[[ "$(id -u)" -eq 0 ]] || die "ffmpeg missing and not root: install Debian's ffmpeg package (apt-get install ffmpeg)"
	DEBIAN_FRONTEND=noninteractive apt-get update -q
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends ffmpeg
	present || die "apt-get installed ffmpeg but ffmpeg or ffprobe is not on PATH"
fi
"$ffmpeg_bin" -hide_banner -version >/dev/null || die "$ffmpeg_bin does not run"
"$ffprobe_bin" -hide_banner -version >/dev/null || die "$ffprobe_bin does not run"
command -v "$ffmpeg_bin"
