#!/bin/sh
echo "error: refresh token expired; run 'sso login' ($1 $2 $3)" >&2
exit 3
