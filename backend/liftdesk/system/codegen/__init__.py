"""Development tools (BladeX ``blade-develop`` / ``blade-report``): code generation records and the zip they make,
and the saved report definitions of the report designer."""
