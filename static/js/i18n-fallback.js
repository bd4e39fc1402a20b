/*
 * The JavaScript catalog's functions in English, for a page whose catalog (/jsi18n/<language>/,
 * ginleague/i18n.py) did not load: offline before the service worker kept it, or a failed download.
 * Loaded right after the catalog's <script>; does nothing when the catalog is there. The scripts call
 * gettext, ngettext, interpolate, ... unguarded (as Django's catalog defines them).
 */
(function (globals) {
  "use strict";
  if (typeof globals.gettext === "function") { return; }
  var django = globals.django || (globals.django = {});
  var FORMATS = {
    DATE_INPUT_FORMATS: ["%Y-%m-%d", "%d/%m/%Y", "%d/%m/%y"],
    DECIMAL_SEPARATOR: ".",
    FIRST_DAY_OF_WEEK: 1,
    NUMBER_GROUPING: 3,
    THOUSAND_SEPARATOR: ",",
    DATE_FORMAT: "j M Y",
    DATETIME_FORMAT: "j M Y, H:i",
    MONTH_DAY_FORMAT: "j M",
    SHORT_DATE_FORMAT: "d/m/Y",
    TIME_FORMAT: "H:i"
  };
  django.pluralidx = function (count) { return Number(count) === 1 ? 0 : 1; };
  django.gettext = function (msgid) { return msgid; };
  django.ngettext = function (singular, plural, count) { return Number(count) === 1 ? singular : plural; };
  django.gettext_noop = function (msgid) { return msgid; };
  django.pgettext = function (context, msgid) { return msgid; };
  django.npgettext = function (context, singular, plural, count) { return Number(count) === 1 ? singular : plural; };
  django.interpolate = function (fmt, values, named) {
    if (named) {
      return fmt.replace(/%\(\w+\)s/g, function (match) { return String(values[match.slice(2, -2)]); });
    }
    var position = 0;
    return fmt.replace(/%s/g, function () { return String(values[position++]); });
  };
  django.get_format = function (name) { return Object.prototype.hasOwnProperty.call(FORMATS, name) ? FORMATS[name] : name; };
  ["pluralidx", "gettext", "ngettext", "gettext_noop", "pgettext", "npgettext", "interpolate", "get_format"].forEach(function (name) {
    globals[name] = django[name];
  });
})(this);
