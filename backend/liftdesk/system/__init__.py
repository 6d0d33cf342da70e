"""System administration: tenants, users, roles, menus, organisations, dictionaries, parameters, clients, scopes.

Loading the context installs its side of ``core.access`` (who may do what), which ``core`` reads through.
"""

from liftdesk.system import access as _access  # noqa: F401
