/* Left empty on purpose (see _ext/static/README.md): the theme's stylesheet already draws
   its FontAwesome icons with FontAwesome's web fonts, so the 1.5 MB script that redraws
   them as SVG is not loaded. */
