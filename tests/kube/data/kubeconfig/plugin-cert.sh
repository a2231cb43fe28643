#!/bin/sh
# Prints the ExecCredential the test prepared (clientCertificateData + clientKeyData).
cat "$CREDENTIAL_FILE"
