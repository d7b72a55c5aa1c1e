import warp as wp

wp.config.quiet = True
wp.init()
