// TernTarget: built by a later issue (see the issue tracker). The module exists so the package's products are stable.
