#!/bin/sh
# Install Footnote for the current user from an unpacked footnote-<version>-linux-x86_64 tarball.
#
#   ./install.sh                 app in ~/.local/share/footnote, command in ~/.local/bin/footnote
#   PREFIX=/opt/footnote ./install.sh      app folder elsewhere
#   BINDIR=$HOME/bin ./install.sh          launcher symlink elsewhere
#
# It also registers a desktop entry (menus, "Open with" for PDF files) and the app icon under
# $XDG_DATA_HOME (default ~/.local/share). Every path it creates outside the app folder is written
# to <app folder>/.footnote-install so that uninstall.sh removes exactly those and nothing else.
# Re-running it upgrades in place. Your library (~/.local/share/Footnote) is never touched.
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
DATA_HOME=${XDG_DATA_HOME:-$HOME/.local/share}
PREFIX=${PREFIX:-$DATA_HOME/footnote}
BINDIR=${BINDIR:-$HOME/.local/bin}
APPS_DIR=$DATA_HOME/applications
ICONS_DIR=$DATA_HOME/icons/hicolor
MANIFEST_NAME=.footnote-install

say() { printf '%s\n' "$*"; }
die() { printf 'install.sh: %s\n' "$*" >&2; exit 1; }

[ -x "$HERE/Footnote/Footnote" ] || die "no Footnote/Footnote next to this script; unpack the whole tarball first."
[ -f "$HERE/footnote.desktop.in" ] || die "no footnote.desktop.in next to this script; unpack the whole tarball first."
case "$PREFIX" in
    /*) ;;
    *) PREFIX=$(pwd)/$PREFIX ;;
esac
case "$PREFIX" in
    / | "$HOME" | "$HOME/" | "$DATA_HOME" | "$DATA_HOME/") die "refusing to install into $PREFIX itself; choose a dedicated folder." ;;
esac

# An existing folder is replaced only if an earlier install.sh made it.
if [ -e "$PREFIX" ]; then
    [ -f "$PREFIX/$MANIFEST_NAME" ] || die "$PREFIX exists and was not made by this installer; remove it or set PREFIX."
    say "Upgrading the Footnote installed in $PREFIX"
    "$PREFIX/uninstall.sh" --quiet --keep-user-data || die "could not remove the previous install in $PREFIX"
fi

mkdir -p "$(dirname "$PREFIX")" "$BINDIR" "$APPS_DIR"
STAGE="$PREFIX.partial.$$"
trap 'rm -rf "$STAGE"' EXIT INT TERM
rm -rf "$STAGE"
mkdir -p "$STAGE"
cp -R "$HERE/Footnote/." "$STAGE/"
cp "$HERE/uninstall.sh" "$STAGE/uninstall.sh"
chmod 755 "$STAGE/uninstall.sh" "$STAGE/Footnote"
mv "$STAGE" "$PREFIX"
trap - EXIT INT TERM

MANIFEST=$PREFIX/$MANIFEST_NAME
: >"$MANIFEST"
record() { printf '%s\n' "$1" >>"$MANIFEST"; }

# Command-line launcher: `footnote` (GUI with no arguments, CLI with them).
LINK=$BINDIR/footnote
if [ -e "$LINK" ] && [ ! -L "$LINK" ]; then
    say "Note: $LINK exists and is not a symlink; left as it is (run $PREFIX/Footnote directly)."
else
    ln -sfn "$PREFIX/Footnote" "$LINK"
    record "$LINK"
fi

# Icons: scalable SVG plus PNGs for desktops that do not render SVG.
if [ -f "$HERE/icons/footnote.svg" ]; then
    mkdir -p "$ICONS_DIR/scalable/apps"
    cp "$HERE/icons/footnote.svg" "$ICONS_DIR/scalable/apps/footnote.svg"
    record "$ICONS_DIR/scalable/apps/footnote.svg"
fi
for png in "$HERE"/icons/footnote-*.png; do
    [ -f "$png" ] || continue
    size=${png##*/footnote-}
    size=${size%.png}
    mkdir -p "$ICONS_DIR/${size}x${size}/apps"
    cp "$png" "$ICONS_DIR/${size}x${size}/apps/footnote.png"
    record "$ICONS_DIR/${size}x${size}/apps/footnote.png"
done

# Desktop entry: application menus, and "Open with Footnote" for the documents it reads (the
# tarball's footnote.desktop.in, made by packaging/desktop_entry.py from app/core/formats.py).
DESKTOP=$APPS_DIR/footnote.desktop
APP_SED=$(printf '%s' "$PREFIX/Footnote" | sed 's/[&|\\]/\\&/g')
sed -e "s|^Exec=@APP@|Exec=\"$APP_SED\"|" -e "s|@APP@|$APP_SED|g" \
    "$HERE/footnote.desktop.in" >"$DESKTOP"
chmod 644 "$DESKTOP"
record "$DESKTOP"

# Refresh the desktop's caches where those tools exist; harmless to skip.
if command -v update-desktop-database >/dev/null 2>&1; then
    update-desktop-database -q "$APPS_DIR" 2>/dev/null || true
fi
if command -v gtk-update-icon-cache >/dev/null 2>&1 && [ -f "$ICONS_DIR/index.theme" ]; then
    gtk-update-icon-cache -q -t -f "$ICONS_DIR" 2>/dev/null || true
fi

say "Footnote is installed in $PREFIX"
say "  Start it from your application menu, or run: footnote"
say "  Uninstall with: $PREFIX/uninstall.sh"
case ":$PATH:" in
    *":$BINDIR:"*) ;;
    *) say "  ($BINDIR is not on your PATH; add it, or run $PREFIX/Footnote)" ;;
esac
