#!/bin/sh
# Remove a Footnote installed by install.sh. install.sh copies this script into the app folder:
#
#   ~/.local/share/footnote/uninstall.sh            remove the app, launcher, menu entry, icons
#   ~/.local/share/footnote/uninstall.sh --purge    ...and your library, logs and settings too
#
# It removes only the paths listed in the app folder's .footnote-install manifest (written by
# install.sh), then the app folder itself.
set -eu

QUIET=0
PURGE=0
for arg in "$@"; do
    case "$arg" in
        --quiet) QUIET=1 ;;
        --purge) PURGE=1 ;;
        --keep-user-data) PURGE=0 ;;
        -h | --help)
            sed -n '2,8p' "$0"
            exit 0
            ;;
        *)
            printf 'uninstall.sh: unknown option %s\n' "$arg" >&2
            exit 2
            ;;
    esac
done

say() { [ "$QUIET" = 1 ] || printf '%s\n' "$*"; }
# Remove the now-empty folders above a removed path that the install created (up to $HOME).
prune_parents() {
    dir=$(dirname "$1")
    while [ "$dir" != "/" ] && [ "$dir" != "$HOME" ] && rmdir "$dir" 2>/dev/null; do
        dir=$(dirname "$dir")
    done
}
die() { printf 'uninstall.sh: %s\n' "$*" >&2; exit 1; }

APP_DIR=$(cd "$(dirname "$0")" && pwd)
MANIFEST=$APP_DIR/.footnote-install
[ -f "$MANIFEST" ] || die "$APP_DIR has no .footnote-install manifest; it was not installed by install.sh."

while IFS= read -r path; do
    [ -n "$path" ] || continue
    if [ -L "$path" ]; then
        # a launcher symlink: remove it only while it still points into this install
        case "$(readlink "$path")" in
            "$APP_DIR"/*) rm -f "$path" ;;
            *) say "Left $path (it no longer points to this install)" ;;
        esac
    elif [ -f "$path" ]; then
        rm -f "$path"
    fi
    prune_parents "$path"  # hicolor/256x256/apps, ... when nothing else is in them
done <"$MANIFEST"

APPS_DIR=${XDG_DATA_HOME:-$HOME/.local/share}/applications
if [ -d "$APPS_DIR" ] && command -v update-desktop-database >/dev/null 2>&1; then
    update-desktop-database -q "$APPS_DIR" 2>/dev/null || true
    # an emptied cache file is ours to clean up
    if [ "$(ls -A "$APPS_DIR")" = "mimeinfo.cache" ]; then
        rm -f "$APPS_DIR/mimeinfo.cache"
        rmdir "$APPS_DIR" 2>/dev/null && prune_parents "$APPS_DIR"
    fi
fi

if [ "$PURGE" = 1 ]; then
    # Footnote's own per-user folders (platformdirs names them after the app, "Footnote").
    for d in "${XDG_DATA_HOME:-$HOME/.local/share}/Footnote" \
        "${XDG_STATE_HOME:-$HOME/.local/state}/Footnote" \
        "${XDG_CONFIG_HOME:-$HOME/.config}/Footnote" \
        "${XDG_CACHE_HOME:-$HOME/.cache}/Footnote"; do
        if [ -e "$d" ]; then
            rm -rf "$d"
            prune_parents "$d"
            say "Removed $d"
        fi
    done
fi

# Finally the app folder itself. This script lives in it: sh keeps reading the open, unlinked file.
case "$APP_DIR" in
    / | "$HOME") die "refusing to remove $APP_DIR" ;;
esac
rm -rf "$APP_DIR"
prune_parents "$APP_DIR"
say "Footnote has been removed."
[ "$PURGE" = 1 ] || say "Your library and settings were kept; run with --purge to remove them too."
