"""Workspaces: configurations, the manifest, the lazily loaded ``Workspace`` model and its workspace-wide views."""
