"""The site's own date and number formats per language (settings.FORMAT_MODULE_PATH); Django's for the rest."""
