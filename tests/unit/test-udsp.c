// SPDX-License-Identifier: GPL-2.0
#include "unit.h"
Suite *make_udsp_suite(void)
{
	return suite_create("udsp");
}
