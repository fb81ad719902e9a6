#!/bin/sh
# The browser of the OAuth scenarios: toolscope runs $BROWSER with the
# authorization URL. The suite's authorization server approves at once and
# redirects to the redirect URI toolscope registered (its loopback
# callback) with the code; following the redirects delivers it, as a
# browser does once the user clicked "Authorize".
exec curl --silent --show-error --fail --location --max-time 30 --output /dev/null "$1"
