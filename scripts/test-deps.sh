#!/usr/bin/env bash
# Installs the Debian packages the test suite starts for real, before `npm test`
# runs it: as root or with password-less sudo it installs what is missing;
# otherwise it stops at once and prints the one command to run.
set -euo pipefail

# chromium              browser tests of the web app
# qemu-user-static, libc6-arm64-cross, libstdc++6-arm64-cross
#                       run the Raspberry Pi (arm64) executable
# libxml2-utils         xmllint reads our XML (sitemap, GPX, KML)
# systemd               systemd-analyze / systemd-sysusers for the install test
# direwolf              decode_aprs, the independent APRS decoder our decoder is compared with;
#                       and two real TNCs joined by FIFO audio for the radio tests
# socat                 ptys as serial TNCs
# gpsbabel              reads our GPX and KML exports the way GPS tools do
# python3-cbor2, python3-nacl
#                       an independent CBOR + libsodium for federation interop tests
# fbb                   F6FBB (xfbbd) as a real forwarding partner of the BBS
# aprx                  a real KISS client (tcp-device) of the gateway's KISS server
# e2fsprogs, util-linux a small loop-mounted filesystem for the full-disk test
# faketime              libfaketime: a gateway booted "in 1970", and NTP-like clock steps (test/system/clock.test.ts)
# libnss3-tools         certutil: Chromium trusts the gateway's local CA from an NSS database (test/tls/)
# pebble                Let's Encrypt's test ACME server and pebble-challtestsrv (its DNS): TLS=acme (test/tls/acme.test.ts)
PACKAGES=(chromium qemu-user-static libc6-arm64-cross libstdc++6-arm64-cross libxml2-utils systemd direwolf socat gpsbabel python3-cbor2 python3-nacl fbb aprx e2fsprogs util-linux faketime libnss3-tools pebble)

if ! command -v dpkg >/dev/null 2>&1; then
  echo "test-deps: this is not a Debian machine; install the equivalents of: ${PACKAGES[*]}" >&2
  exit 0
fi
missing=()
for p in "${PACKAGES[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO="sudo"
  else
    echo "The test suite needs these Debian packages: ${missing[*]}" >&2
    echo "Install them with this one command, then run npm test again:" >&2
    echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
    exit 1
  fi
fi
echo "test-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq </dev/null
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null
# aprx's package starts a daemon that logs in to public APRS-IS servers: the tests run
# their own aprx against loopback only, so the packaged service is stopped and disabled
if [[ " ${missing[*]} " == *" aprx "* ]]; then
  $SUDO invoke-rc.d aprx stop >/dev/null 2>&1 || true
  $SUDO update-rc.d aprx disable >/dev/null 2>&1 || true
fi
