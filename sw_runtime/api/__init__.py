"""HTTP routes, one module per area; ``sw_runtime.app`` assembles them."""
