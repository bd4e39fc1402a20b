"""Static files under hashed names, compressed (whitenoise), with the offline app's ES modules linked by hash.

The offline app (static/js/offline/*.js) is a set of ES modules loaded by one entry point; each imports
the others by relative name ("./kept.js"). Collected, every file gets a hashed name that browsers keep
for good, so those imports must name the hashed files too, or a phone could mix one release's modules
with another's. Django rewrites module imports when asked (``support_js_module_import_aggregation``),
but for every JavaScript file, vendored ones included; here only the offline app's modules are read
for imports. Their imports form no cycle (common < kept < scorer < queue < sheet < sync < main), which
the hashing needs.

Every file is gzipped. The site's own files and htmx, which a phone's pages load, are also kept in
brotli under their hashed names (those the pages ask for): about a tenth smaller, for the browsers
that accept it (all do). Not the admin's nor the API documentation's bundles: brotli at its best
level takes about a minute for those on a 2-core machine, which each `make run` after a change would
wait for.
"""

import os
import re
from pathlib import Path

from django.conf import settings
from django.contrib.staticfiles.storage import ManifestStaticFilesStorage
from whitenoise.compress import Compressor
from whitenoise.storage import CompressedManifestStaticFilesStorage

OFFLINE_MODULES = "js/offline/*.js"
# Collected names that pages load besides static/'s own: htmx (its hashed name starts the same).
PAGE_FILES = ("django_htmx/htmx-2.min.",)


def page_files() -> tuple[str, ...]:
    """The starts of the collected names that pages load: static/'s own folders, and ``PAGE_FILES``."""
    folders = (folder for root in settings.STATICFILES_DIRS for folder in Path(root).iterdir())
    return (*(f"{folder.name}/" for folder in folders if folder.is_dir()), *PAGE_FILES)


# A collected name with its content's hash (the one pages ask for; the plain name is collected too).
HASHED_NAME = re.compile(r"\.[0-9a-f]{12}\.\w+$")


class PageFirstCompressor(Compressor):
    """whitenoise's compressor, brotli only for the hashed names under ``root`` that start with one of
    ``names``; gzip for every file."""

    def __init__(self, *, root: str, names: tuple[str, ...], **kwargs):
        super().__init__(**kwargs)
        self.brotli_for = tuple(os.path.join(root, name) for name in names)
        self.gzip_only = Compressor(**{**kwargs, "use_brotli": False})

    def compress(self, path: str) -> list[str]:
        if self.use_brotli and not (path.startswith(self.brotli_for) and HASHED_NAME.search(path)):
            return self.gzip_only.compress(path)
        return super().compress(path)


class StaticFilesStorage(CompressedManifestStaticFilesStorage):
    patterns = (
        *CompressedManifestStaticFilesStorage.patterns,
        (OFFLINE_MODULES, ManifestStaticFilesStorage._js_module_import_aggregation_patterns[1]),
    )

    def create_compressor(self, **kwargs) -> Compressor:
        return PageFirstCompressor(root=self.location, names=page_files(), **kwargs)
