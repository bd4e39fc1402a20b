"""British English formats: the site's look from before it was translated."""
