"""Static files under hashed names, gzipped (whitenoise), with the offline app's ES modules linked by hash.

The offline app (static/js/offline/*.js) is a set of ES modules loaded by one entry point; each imports
the others by relative name ("./kept.js"). Collected, every file gets a hashed name that browsers keep
for good, so those imports must name the hashed files too, or a phone could mix one release's modules
with another's. Django rewrites module imports when asked (``support_js_module_import_aggregation``),
but for every JavaScript file, vendored ones included; here only the offline app's modules are read
for imports. Their imports form no cycle (common < kept < scorer < queue < sheet < sync < main), which
the hashing needs.
"""

from django.contrib.staticfiles.storage import ManifestStaticFilesStorage
from whitenoise.storage import CompressedManifestStaticFilesStorage

OFFLINE_MODULES = "js/offline/*.js"


class StaticFilesStorage(CompressedManifestStaticFilesStorage):
    patterns = (
        *CompressedManifestStaticFilesStorage.patterns,
        (OFFLINE_MODULES, ManifestStaticFilesStorage._js_module_import_aggregation_patterns[1]),
    )
