#!/usr/bin/env bash
# Translations (gettext catalogues managed with Babel; docs/playing.md, "Languages").
#   scripts/i18n.sh extract   code -> locale/messages.pot
#   scripts/i18n.sh update    messages.pot -> every locale/*/LC_MESSAGES/messages.po (new
#                             strings empty, changed ones fuzzy: translate them)
#   scripts/i18n.sh compile   every messages.po -> messages.mo (committed: the bot loads it)
#   scripts/i18n.sh all       the three in turn
# tests/tools/test_i18n.py fails when the .pot, a .po or a .mo is out of date.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-.venv/bin/python}"
[ -x "$PY" ] || PY=python3
ERRORS=(EngineError ParseError SettingsError GameOverError NotAPlayerError NotYourTurnError
        IllegalMoveError CardNotInHandError NoMatchError ChoiceError UnoCallError)
# The bot's refusals carry their msgid, translated when answered (cogs/uno/table/contracts.py);
# tests/table/test_refusals.py checks every class raised with one is listed here.
REFUSALS=(Refusal SaveFailed)

extract() {
  local keywords=(-k _:1 -k pgettext:1c,2 -k ngettext:1,2)
  for e in "${ERRORS[@]}" "${REFUSALS[@]}"; do keywords+=(-k "$e:1"); done
  PYTHONPATH=. "$PY" -m babel.messages.frontend -q extract -F babel.cfg --no-default-keywords \
    "${keywords[@]}" --add-comments=TRANSLATORS: --sort-by-file --add-location=file --no-wrap \
    --project=uno-power-grab-bot -o "${1:-locale/messages.pot}" .
}

case "${1:-all}" in
  extract) extract "${2:-}" ;;
  update) "$PY" -m babel.messages.frontend -q update -i locale/messages.pot -d locale \
            -D messages --no-wrap --ignore-obsolete ;;
  compile) "$PY" -m babel.messages.frontend compile -d locale -D messages --statistics ;;
  all) "$0" extract && "$0" update && "$0" compile ;;
  *) echo "usage: $0 extract [OUT.pot] | update | compile | all" >&2; exit 2 ;;
esac
