# Router modules of the vakra-rs demo domains (one module per domain)
