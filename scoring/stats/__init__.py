"""Statistics and history: profiles, head-to-head, ratings, hand history and exports."""
