"""Merge analysis of cooperative (two-agent) submissions (seed 003): drop test files from the
agents' patches (``patchfilter``), merge them with git in a throwaway repository
(``gitmerge``), count and score the conflicts (``conflicts``), test the merged code
(``coop``), write seed 003's merge report (``report``)."""
