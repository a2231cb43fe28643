#!/bin/sh
# Counts its runs in ./runs and prints a token that expires at $EXPIRY; checks KUBERNETES_EXEC_INFO.
case "$KUBERNETES_EXEC_INFO" in
*'"interactive":false'*) ;;
*) echo "KUBERNETES_EXEC_INFO missing: $KUBERNETES_EXEC_INFO" >&2; exit 1 ;;
esac
n=$(cat runs 2>/dev/null || echo 0)
n=$((n + 1))
echo "$n" > runs
printf '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"token-%s","expirationTimestamp":"%s"}}\n' "$n" "$EXPIRY"
